"""Seeded random data-only charts for the Step Functions proof (.ci/stepfunctions.py).

Each chart mixes actions that store values (and record their visit), conditions, keyed
choices, dispatches joined with `.all`, maps, retries, failures caught by a catch route and
failures left uncaught; each comes with contexts drawn from the same seed. The same seed
gives the same charts and contexts.
"""

import random

KEYS = ["x", "y", "z"]


class Generator:
    def __init__(self, seed, maps=True):
        self.random = random.Random(seed)
        self.maps = maps
        self.count = 0
        self.recoveries = []

    def name(self, word):
        self.count += 1
        # Some names need the export's renaming: spaces, a question mark, a colon.
        decoration = self.random.choice(["", "?", ": step", " (again)"])
        return f"S{self.count} {word}{decoration}"

    def action(self, final=False, top=False):
        name = self.name("act")
        state = {"action": name, "store": [{"path": f"visited.s{self.count}", "value": self.count}]}
        roll = self.random.random()
        if roll < 0.12:
            if top:
                # Caught: a catch route leads to a state of its own flow, the top level.
                target = f"R{self.random.randint(0, 1)} recover"
                self.used.add(target)
                state["fail"] = f"{name} failed"
                state["catch"] = [{"goTo": target, "errors": "failure", "storeAt": "error"}]
        elif roll < 0.15:
            state["fail"] = f"{name} failed"  # uncaught: the run fails on both
        elif roll < 0.22:
            state["retry"] = {"count": 1}
        if final:
            state["final"] = True
        return state

    def block(self, depth, final, top=False):
        """A list of states and whether it always ends its flow; ends when `final`."""
        states = []
        for _ in range(self.random.randint(1, 2)):
            roll = self.random.random()
            if depth > 0 and roll < 0.25:
                state, ends = self.condition(depth - 1, top)
            elif depth > 0 and roll < 0.4:
                state, ends = self.keyed(depth - 1, top)
            elif depth > 0 and roll < 0.5:
                state, ends = self.dispatch(depth - 1), False
            elif roll < 0.58 and self.maps:
                state, ends = self.map(), False
            else:
                state, ends = self.action(top=top), False
            states.append(state)
            if ends:
                return states, True
        if final:
            states.append(self.action(final=True, top=top))
        return states, final

    def condition(self, depth, top):
        name = self.name("check")
        path = self.random.choice(["a", "b"])
        yes, yes_ends = self.block(depth, self.random.random() < 0.5, top)
        no, no_ends = self.block(depth, self.random.random() < 0.5, top)
        state = {"condition": name, "test": {"equal": {"path": path, "value": True}},
                 "yes": yes, "no": no}
        return state, yes_ends and no_ends

    def keyed(self, depth, top):
        name = self.name("choose")
        exits, ends = [], True
        for key in self.random.sample(KEYS, 2):
            states, final = self.block(depth, self.random.random() < 0.5, top)
            exits.append({"case": key, "states": states})
            ends = ends and final
        if self.random.random() < 0.7:
            states, final = self.block(depth, self.random.random() < 0.5, top)
            exits.append({"default": states})
            ends = ends and final
        # Without a default, an unmatched key fails the run, on both.
        return {"multipleCondition": name, "value": "k", "exits": exits}, ends

    def dispatch(self, depth):
        name = self.name("split")
        branches = [
            {"name": f"{name} branch {index + 1}", "states": self.block(depth, final=True)[0]}
            for index in range(self.random.randint(2, 3))
        ]
        return {"dispatch": name, "branches": branches}

    def map(self):
        name = self.name("each")
        inner = Generator(self.random.random(), maps=False)
        return {"map": name, "over": "items", "into": f"out{self.count}",
                "states": inner.block(1, final=True)[0]}

    def chart(self):
        self.used = set()
        states, _ = self.block(2, final=True, top=True)
        # The recovery states catch routes lead to, at the end.
        for name in sorted(self.used):
            states.append({"action": name, "final": True,
                           "store": [{"path": "recovered", "value": name}]})
        return {"flowchart": states}

    def context(self):
        context = {
            "a": self.random.random() < 0.5,
            "b": self.random.random() < 0.5,
            "items": [{"a": self.random.random() < 0.5, "b": False, "k": "x"}
                      for _ in range(self.random.randint(0, 2))],
        }
        if self.random.random() < 0.8:
            context["k"] = self.random.choice(KEYS + ["w"])
        return context


def charts(seed, count, contexts):
    """`count` charts, each with `contexts` contexts, from `seed`."""
    for index in range(count):
        generator = Generator(seed * 1000 + index)
        chart = generator.chart()
        yield chart, [generator.context() for _ in range(contexts)]
