// Everything is `static inline` in the header; this file makes the target a C library.
#include "CFlowchartAtomics.h"
