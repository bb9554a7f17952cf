"""Proof that an exported chart runs the same on a Step Functions interpreter.

For every sample chart: `flowchart export --asl`, then statelint. For the charts of
.ci/stepfunctions/cases.json (those that need no Swift code), each context is run twice:
by Flowchart (`flowchart run --context`), and by moto's Step Functions (LocalStack's ASL
interpreter, in process, no Docker) on the exported definition, whose tasks send their
payload and a task token to moto's SQS; this script takes each message, runs the state
with `flowchart handle` (Flowchart's own code, the entry point a Lambda would call) and
answers with SendTaskSuccess or SendTaskFailure. The states the execution visits (from its
history, mapped back through each ASL state's Comment) and its final output must equal
Flowchart's path and final context; a failed run must fail on both.

For every exported sample (those whose conditions need Swift code too), every route that
`flowchart routes --json --cycles 2` lists (FlowchartTesting's route enumeration) is driven
by forced decisions: Flowchart runs with the route's `--decide` values, and on moto each task
is answered by `flowchart handle --decide 'State=decision'`, the decision of that visit (this
script counts the visits of each state in each execution). Routes that decisions alone
cannot drive (a state fails, a waiting state takes a value) are counted and skipped.

The Health workflow declared in Swift (Playgrounds/HealthOnStepFunctions) is exported by its
own worker executable, which answers its tasks too (`HealthOnStepFunctions handle`), on the
contexts of cases.json's "swift" entry, compared with the worker's own in-process run.

Then the same for seeded random charts (.ci/stepfunctions/random_charts.py): conditions,
keyed choices, dispatches, maps, retries, caught and uncaught failures, three contexts each;
FLOWCHART_SEED (default 1) and FLOWCHART_RANDOM_CHARTS (default 20) choose them.

Usage: python .ci/stepfunctions.py <path of the flowchart tool> <path of HealthOnStepFunctions>
"""

import glob
import json
import logging
import os
import re
import subprocess
import sys
import tempfile
import time

import boto3
from moto import mock_aws
from moto.core.responses import EmptyResult
from moto.stepfunctions.parser.models import StepFunctionsParserBackend
from moto.stepfunctions.responses import StepFunctionResponse


def send_task_failure(self):
    """moto's SendTaskFailure, passing on the cause, which moto 5.2 drops."""
    self.stepfunction_backend.send_task_failure(
        self._get_param("taskToken"), error=self._get_param("error"), cause=self._get_param("cause")
    )
    return EmptyResult()


StepFunctionResponse.send_task_failure = send_task_failure
_executions = StepFunctionsParserBackend._get_executions


def live_executions(self, execution_status=None):
    """moto's running executions, without those whose worker is gone (an execution that
    failed can keep the RUNNING status in moto 5.2 after its worker ended)."""
    return [e for e in _executions(self, execution_status) if e.exec_worker is not None]


StepFunctionsParserBackend._get_executions = live_executions

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "stepfunctions"))
import random_charts  # noqa: E402

TOOL = sys.argv[1]
WORKER = sys.argv[2]
# moto logs every failed execution's whole program; the comparison says what matters.
logging.getLogger("moto").setLevel(logging.CRITICAL)
QUEUE = "flowchart"
# How many times a forced route may come back to a state: a loop's second turn decides
# differently from its first on the same state.
ROUTE_CYCLES = "2"
# The Comment of an ASL state that is a Flowchart state: `kind 'name' (#id)`; the states the
# export adds (a Choice, a merge, a catch handler) say what they are instead.
STATE_COMMENT = re.compile(
    r"^(?:action|condition|multiple condition|dispatch|subflow|map|waiting state) '(.*)' \(#\d+\)$"
)


def tool(*arguments, stdin=None):
    return subprocess.run(
        [TOOL, *arguments], input=stdin, capture_output=True, text=True, check=False
    )


def worker(*arguments, stdin=None):
    return subprocess.run(
        [WORKER, *arguments], input=stdin, capture_output=True, text=True, check=False
    )


def parse_run(result):
    """What `flowchart run` (or the worker's `run`) printed: status, path and final context."""
    if result.returncode != 0:
        return {"status": "FAILED", "path": None, "context": None, "text": result.stderr}
    lines = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    return {
        "status": "SUCCEEDED",
        "path": lines["Path"].split(" -> "),
        "context": json.loads(lines["Context"]),
        "decision": lines["Decision"],
    }


class ToolEngine:
    """A chart file: run by `flowchart run`, its tasks answered by `flowchart handle`, with
    the decisions of a route forced (`decide`: state -> its decisions, one per visit) and its
    failures (`fail`: state -> how each attempt of its code goes, `none` when it runs
    normally; the attempts after the last run normally)."""

    def __init__(self, chart, decide=None, fail=None):
        self.chart = chart
        self.decide = decide or {}
        self.fail = fail or {}

    def expected(self, context, sent):
        sends = [f"--send={name}={json.dumps(value)}" for name, value in sent.items()]
        decisions = [
            f"--decide={name}={decision}"
            for name, decisions in self.decide.items() for decision in decisions
        ]
        failures = [
            f"--fail={name}={how}" for name, values in self.fail.items() for how in values
        ]
        return parse_run(tool("run", self.chart, "--context", json.dumps(context),
                              *sends, *decisions, *failures))

    def handle(self, payload, visit, attempt):
        state = payload.get("state")
        decisions = self.decide.get(state, [])
        forced = []
        if payload.get("step", "state") == "state" and "nested" not in payload \
                and state in self.fail:
            # A state that fails on the route: each task is one attempt, which takes its
            # `--fail` value; the attempts that run normally take the decisions in turn.
            values = self.fail[state]
            if attempt < len(values) and values[attempt] != "none":
                return tool("handle", self.chart, "--fail", f"{state}={values[attempt]}",
                            stdin=json.dumps(payload))
            visit = attempt - sum(1 for how in values[:attempt] if how != "none")
        if payload.get("step", "state") == "state" and visit < len(decisions):
            forced = ["--decide", f"{state}={decisions[visit]}"]
        return tool("handle", self.chart, *forced, stdin=json.dumps(payload))


class WorkerEngine:
    """The Swift chart of Playgrounds/HealthOnStepFunctions: run and answered by its worker."""

    chart = "Playgrounds/HealthOnStepFunctions"

    def expected(self, context, sent):
        return parse_run(worker("run", stdin=json.dumps(context)))

    def handle(self, payload, visit, attempt):
        return worker("handle", stdin=json.dumps(payload))


def comments(machine, into):
    """ASL state name -> Flowchart state name, for every state of `machine` and its branches."""
    for name, state in machine["States"].items():
        match = STATE_COMMENT.match(state.get("Comment", ""))
        if match:
            into[name] = match.group(1).replace("\\'", "'")
        for branch in state.get("Branches", []):
            comments(branch, into)
    return into


def step_functions_run(sfn, sqs, queue_url, machine_arn, engine, context, sent, names, run):
    execution = sfn.start_execution(
        stateMachineArn=machine_arn, name=f"run{run}", input=json.dumps(context)
    )
    arn = execution["executionArn"]
    tasks = 0
    visits = {}
    # Every attempt of a state's code, retries too (each takes its own `--fail` value).
    attempts = {}
    # The decision of the top-level state that ended the execution, from its task's answer
    # (the definition's OutputPath keeps only the context).
    decision = None
    deadline = time.time() + 60
    while True:
        messages = sqs.receive_message(
            QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0
        ).get("Messages", [])
        for message in messages:
            payload = json.loads(message["Body"])
            token = payload.pop("taskToken")
            if payload.get("waitsForInput"):
                # What the sender of a waiting state's value does: add it to the payload.
                payload["input"] = sent[payload["state"]]
            # The visit of this state this task is (each visit's decision is forced).
            key = json.dumps([payload.get("nested"), payload.get("state")])
            visit = visits.get(key, 0)
            attempt = attempts.get(key, 0)
            if payload.get("step", "state") == "state":
                attempts[key] = attempt + 1
                if payload.get("retryCount", 0) == 0:
                    visits[key] = visit + 1
            answer = engine.handle(payload, visit, attempt)
            tasks += 1
            reply = json.loads(answer.stdout)
            if answer.returncode == 0 and "nested" not in payload and reply.get("exit") == "end":
                decision = reply.get("decision")
            try:
                if answer.returncode != 0 and reply.get("error") == "States.Timeout":
                    # A timed-out attempt (`handle --fail 'State=timeout'`): its worker never
                    # answers in time, so leave the task to the definition's TimeoutSeconds,
                    # after which Step Functions itself fails it with States.Timeout, which
                    # the state's Retry and Catch take (moto, like the ASL spec, refuses a
                    # SendTaskFailure with an error name that begins with `States.`).
                    pass
                elif answer.returncode == 0:
                    sfn.send_task_success(taskToken=token, output=json.dumps(reply))
                else:
                    sfn.send_task_failure(
                        taskToken=token, error=reply["error"], cause=reply["cause"])
            except (AttributeError, sfn.exceptions.InvalidToken, sfn.exceptions.TaskDoesNotExist):
                # A stale token: its execution ended (a Parallel failed while another branch's
                # task was out; moto 5.2 may also trip on the ended worker). A live token that
                # is lost shows as an execution that never ends, below.
                pass
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
        status = sfn.describe_execution(executionArn=arn)
        if status["status"] != "RUNNING":
            # Tasks of branches the failure of a Parallel cut short: drop their messages.
            while stale := sqs.receive_message(
                QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0
            ).get("Messages", []):
                for message in stale:
                    sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
            break
        if time.time() > deadline:
            raise SystemExit(
                f"{engine.chart}: the execution on {json.dumps(context)} did not end in 60 s")
        if not messages:
            time.sleep(0.02)
    events = sfn.get_execution_history(executionArn=arn, maxResults=1000)["events"]
    path = [
        names[event["stateEnteredEventDetails"]["name"]]
        for event in events
        if event["type"].endswith("StateEntered")
        and event["stateEnteredEventDetails"]["name"] in names
    ]
    output = json.loads(status["output"]) if status["status"] == "SUCCEEDED" else None
    return {"status": status["status"], "path": path, "context": output, "tasks": tasks,
            "decision": decision,
            # The attempts of each top-level state's code, for the routes that force failures.
            "attempts": {json.loads(key)[1]: count for key, count in attempts.items()
                         if json.loads(key)[0] is None}}


def export(chart):
    """The definition of `chart`, checked by statelint; `None` when the export refuses it."""
    result = tool("export", chart, "--asl")
    if result.returncode != 0:
        return None, result.stderr
    with tempfile.NamedTemporaryFile("w", suffix=".asl.json", delete=False) as file:
        file.write(result.stdout)
    lint = subprocess.run(["statelint", file.name], capture_output=True, text=True)
    os.unlink(file.name)
    if lint.returncode != 0:
        raise SystemExit(f"{chart}: statelint rejects the definition:\n{lint.stdout}{lint.stderr}")
    return result.stdout, None


class Proof:
    def __init__(self):
        self.sqs = boto3.client("sqs", region_name="us-east-1")
        self.sfn = boto3.client("stepfunctions", region_name="us-east-1")
        self.queue_url = self.sqs.create_queue(QueueName=QUEUE)["QueueUrl"]
        self.machines = 0
        self.machine_arns = {}
        self.runs = 0
        self.failed_runs = 0

    def check(self, engine, definition, contexts, verbose, label=None):
        """Runs `engine`'s chart on each context on both engines; exits on the first
        difference."""
        chart = engine.chart
        names = comments(json.loads(definition), {})
        if definition not in self.machine_arns:
            self.machines += 1
            self.machine_arns[definition] = self.sfn.create_state_machine(
                name=f"chart{self.machines}", definition=definition,
                roleArn="arn:aws:iam::123456789012:role/flowchart",
            )["stateMachineArn"]
        machine = self.machine_arns[definition]
        has_parallel = '"Type": "Parallel"' in definition
        for case in contexts:
            # A case is a context, or {"context": …, "send": {state: value}} for waiting states.
            sent = {}
            context = case
            if isinstance(case, dict) and set(case) == {"context", "send"}:
                context, sent = case["context"], case["send"]
            expected = engine.expected(context, sent)
            actual = step_functions_run(
                self.sfn, self.sqs, self.queue_url, machine, engine, context, sent, names,
                self.runs)
            same_path = (
                sorted(actual["path"]) == sorted(expected["path"] or [])
                if has_parallel else actual["path"] == expected["path"]
            )
            # Without a Parallel, the last task that ended a flow ended the execution: its
            # decision is the run's (a final condition's yes or no, a key, done).
            same_decision = (
                has_parallel or actual["decision"] is None
                or actual["decision"] == expected.get("decision")
            )
            if actual["status"] != expected["status"] or (
                expected["status"] == "SUCCEEDED"
                and (not same_path or not same_decision
                     or actual["context"] != expected["context"])
            ):
                raise SystemExit(
                    f"{chart} on {json.dumps(context)}{label or ''} runs differently:\n"
                    f"  Flowchart:      {expected}\n  Step Functions: {actual}"
                )
            # Each attempt a route fails (`--fail`) was a task of its own on moto: the retries
            # ran there too, and a timed-out attempt did time out.
            fail = getattr(engine, "fail", {})
            short = {name: actual["attempts"].get(name, 0) for name, values in fail.items()
                     if actual["attempts"].get(name, 0) < len(values)}
            if short:
                raise SystemExit(
                    f"{chart} on {json.dumps(context)}{label or ''}: fewer attempts on Step "
                    f"Functions than the route fails ({short}, forced {fail})")
            self.runs += 1
            self.failed_runs += actual["status"] == "FAILED"
            if verbose:
                print(f"{chart} on {json.dumps(case)}{label or ''}: same, "
                      f"{actual['status'].lower()}"
                      f"{', ' + actual['decision'] if actual['decision'] else ''}, "
                      f"{len(actual['path'])} states, {actual['tasks']} tasks")


@mock_aws(config={"stepfunctions": {"execute_state_machine": True}})
def main():
    started = time.time()
    proof = Proof()
    definitions = {}
    goldens = sorted(glob.glob("Tests/FlowchartStepFunctionsTests/Golden/*.asl.json"))
    for golden in goldens:
        lint = subprocess.run(["statelint", golden], capture_output=True, text=True)
        if lint.returncode != 0:
            raise SystemExit(f"{golden}: statelint rejects the definition:\n{lint.stdout}")
    print(f"{len(goldens)} golden definitions: statelint clean")
    charts = [
        ".ci/stepfunctions/photo-book.json", ".ci/stepfunctions/approval.json",
        ".ci/stepfunctions/packing.json", ".ci/stepfunctions/returns.json",
        ".ci/stepfunctions/polling.json",
    ]
    for chart in sorted(glob.glob("Samples/*.json")) + charts:
        definition, refusal = export(chart)
        if definition is None:
            print(f"{chart}: refused, as expected of what ASL cannot say:\n{refusal}", end="")
            continue
        definitions[chart] = definition
        print(f"{chart}: exported, statelint clean ({len(definition)} bytes)")

    with open(".ci/stepfunctions/cases.json") as file:
        cases = json.load(file)["charts"]
    for chart, contexts in cases.items():
        proof.check(ToolEngine(chart), definitions[chart], contexts, verbose=True)

    # The other samples' routes, driven by forced decisions (their conditions need Swift code).
    with open(".ci/stepfunctions/cases.json") as file:
        route_contexts = json.load(file)["routeContexts"]
    routes_checked = 0
    routes_skipped = []
    # polling.json: a loop whose condition is code, so that a state's visits decide apart.
    forced_charts = [
        chart for chart in definitions
        if chart not in cases and (chart.startswith("Samples/") or chart.endswith("polling.json"))
    ]
    # The charts of `cases` too, for their routes that need a state to fail (no data makes
    # payment.json's attempts fail, retry or time out): forced by `--fail`, one per attempt.
    routes_failing = 0
    for chart in forced_charts + [chart for chart in cases if chart in definitions]:
        definition = definitions[chart]
        listed = tool("routes", chart, "--json", "--cycles", ROUTE_CYCLES)
        if listed.returncode != 0:
            raise SystemExit(f"{chart}: flowchart routes failed:\n{listed.stderr}")
        routes = json.loads(listed.stdout)
        if chart in cases:
            routes = [route for route in routes if route["fail"]]
        for route in routes:
            if not route["decidable"]:
                routes_skipped.append(f"{chart}: {route['route']} ({route['why']})")
                continue
            decide = {}
            for value in route["decide"]:
                name, decision = value.rsplit("=", 1)
                decide.setdefault(name, []).append(decision)
            fail = {}
            for value in route["fail"]:
                name, how = value.rsplit("=", 1)
                fail.setdefault(name, []).append(how)
            context = route_contexts.get(chart, {})
            if route.get("sends"):
                # The values for the route's waiting states come from routeContexts.
                if not isinstance(context, dict) or set(context) != {"context", "send"} \
                        or not set(route["sends"]) <= set(context["send"]):
                    routes_skipped.append(f"{chart}: {route['route']} (no value for "
                                          f"{', '.join(route['sends'])} in routeContexts)")
                    continue
            proof.check(ToolEngine(chart, decide, fail), definition, [context], verbose=True,
                        label=f" down {route['route']}")
            routes_checked += 1
            routes_failing += bool(fail)
    print(f"Forced routes: {routes_checked} routes matched (cycles {ROUTE_CYCLES}): every "
          f"route of {len(forced_charts)} charts whose conditions need code, and "
          f"{routes_failing} routes with forced failures (--fail); {len(routes_skipped)} "
          f"not drivable by --decide and --fail{':' if routes_skipped else '.'}")
    for skipped in routes_skipped:
        print(f"  {skipped}")

    # The Health workflow declared in Swift, exported and answered by its own worker.
    exported = worker("export")
    if exported.returncode != 0:
        raise SystemExit(f"HealthOnStepFunctions export failed:\n{exported.stderr}")
    with tempfile.NamedTemporaryFile("w", suffix=".asl.json", delete=False) as file:
        file.write(exported.stdout)
    lint = subprocess.run(["statelint", file.name], capture_output=True, text=True)
    os.unlink(file.name)
    if lint.returncode != 0:
        raise SystemExit(f"HealthOnStepFunctions: statelint rejects the definition:\n"
                         f"{lint.stdout}{lint.stderr}")
    with open(".ci/stepfunctions/cases.json") as file:
        swift_cases = json.load(file)["swift"]["Playgrounds/HealthOnStepFunctions"]
    proof.check(WorkerEngine(), exported.stdout, swift_cases, verbose=True)
    sample_runs = proof.runs

    seed = int(os.environ.get("FLOWCHART_SEED", "1"))
    count = int(os.environ.get("FLOWCHART_RANDOM_CHARTS", "20"))
    folder = tempfile.mkdtemp(prefix="flowchart-random-")
    states = 0
    for index, (chart, contexts) in enumerate(random_charts.charts(seed, count, 3)):
        path = os.path.join(folder, f"random-{seed}-{index}.json")
        with open(path, "w") as file:
            json.dump(chart, file, indent=1)
        definition, refusal = export(path)
        if definition is None:
            raise SystemExit(f"{path}: the export refused a random chart:\n{refusal}")
        states += definition.count('"Comment": "')
        proof.check(ToolEngine(path), definition, contexts, verbose=False)
    print(f"Random charts (seed {seed}): {count} charts, {proof.runs - sample_runs} runs "
          f"matched ({states} ASL states in all)")
    charts = len(cases) + count + 1 + len(forced_charts)
    print(f"Step Functions: {proof.runs} runs of {charts} charts matched "
          f"Flowchart's ({proof.failed_runs} failed on both) in {time.time() - started:.1f} s")


if __name__ == "__main__":
    main()
