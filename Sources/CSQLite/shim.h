// The system's SQLite, for FlowchartStores' SQLiteRunStore (built with the `SQLite` trait only).
#ifndef FLOWCHART_CSQLITE_SHIM_H
#define FLOWCHART_CSQLITE_SHIM_H

#include <sqlite3.h>

// `SQLITE_TRANSIENT` is a cast macro Swift cannot import: SQLite copies a value bound with it.
static inline sqlite3_destructor_type flowchart_sqlite_transient(void) {
  return SQLITE_TRANSIENT;
}

#endif
