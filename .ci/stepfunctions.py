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

Then the same for seeded random charts (.ci/stepfunctions/random_charts.py): conditions,
keyed choices, dispatches, maps, retries, caught and uncaught failures, three contexts each;
FLOWCHART_SEED (default 1) and FLOWCHART_RANDOM_CHARTS (default 20) choose them.

Usage: python .ci/stepfunctions.py <path of the flowchart tool>
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
# moto logs every failed execution's whole program; the comparison says what matters.
logging.getLogger("moto").setLevel(logging.CRITICAL)
QUEUE = "flowchart"
# The Comment of an ASL state that is a Flowchart state: `kind 'name' (#id)`; the states the
# export adds (a Choice, a merge, a catch handler) say what they are instead.
STATE_COMMENT = re.compile(
    r"^(?:action|condition|multiple condition|dispatch|subflow|map|waiting state) '(.*)' \(#\d+\)$"
)


def tool(*arguments, stdin=None):
    return subprocess.run(
        [TOOL, *arguments], input=stdin, capture_output=True, text=True, check=False
    )


def comments(machine, into):
    """ASL state name -> Flowchart state name, for every state of `machine` and its branches."""
    for name, state in machine["States"].items():
        match = STATE_COMMENT.match(state.get("Comment", ""))
        if match:
            into[name] = match.group(1).replace("\\'", "'")
        for branch in state.get("Branches", []):
            comments(branch, into)
    return into


def flowchart_run(chart, context, sent):
    sends = [f"--send={name}={json.dumps(value)}" for name, value in sent.items()]
    result = tool("run", chart, "--context", json.dumps(context), *sends)
    if result.returncode != 0:
        return {"status": "FAILED", "path": None, "context": None, "text": result.stderr}
    lines = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    return {
        "status": "SUCCEEDED",
        "path": lines["Path"].split(" -> "),
        "context": json.loads(lines["Context"]),
    }


def step_functions_run(sfn, sqs, queue_url, machine_arn, chart, context, sent, names, run):
    execution = sfn.start_execution(
        stateMachineArn=machine_arn, name=f"run{run}", input=json.dumps(context)
    )
    arn = execution["executionArn"]
    tasks = 0
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
            answer = tool("handle", chart, stdin=json.dumps(payload))
            tasks += 1
            reply = json.loads(answer.stdout)
            try:
                if answer.returncode == 0:
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
            raise SystemExit(f"{chart}: the execution on {json.dumps(context)} did not end in 60 s")
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
    return {"status": status["status"], "path": path, "context": output, "tasks": tasks}


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
        self.runs = 0
        self.failed_runs = 0

    def check(self, chart, definition, contexts, verbose):
        """Runs `chart` on each context on both engines; exits on the first difference."""
        names = comments(json.loads(definition), {})
        self.machines += 1
        machine = self.sfn.create_state_machine(
            name=f"chart{self.machines}", definition=definition,
            roleArn="arn:aws:iam::123456789012:role/flowchart",
        )["stateMachineArn"]
        has_parallel = '"Type": "Parallel"' in definition
        for case in contexts:
            # A case is a context, or {"context": …, "send": {state: value}} for waiting states.
            sent = {}
            context = case
            if isinstance(case, dict) and set(case) == {"context", "send"}:
                context, sent = case["context"], case["send"]
            expected = flowchart_run(chart, context, sent)
            actual = step_functions_run(
                self.sfn, self.sqs, self.queue_url, machine, chart, context, sent, names,
                self.runs)
            same_path = (
                sorted(actual["path"]) == sorted(expected["path"] or [])
                if has_parallel else actual["path"] == expected["path"]
            )
            if actual["status"] != expected["status"] or (
                expected["status"] == "SUCCEEDED"
                and (not same_path or actual["context"] != expected["context"])
            ):
                raise SystemExit(
                    f"{chart} on {json.dumps(context)} runs differently:\n"
                    f"  Flowchart:      {expected}\n  Step Functions: {actual}"
                )
            self.runs += 1
            self.failed_runs += actual["status"] == "FAILED"
            if verbose:
                print(f"{chart} on {json.dumps(case)}: same, {actual['status'].lower()}, "
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
        proof.check(chart, definitions[chart], contexts, verbose=True)
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
        proof.check(path, definition, contexts, verbose=False)
    print(f"Random charts (seed {seed}): {count} charts, {proof.runs - sample_runs} runs "
          f"matched ({states} ASL states in all)")
    print(f"Step Functions: {proof.runs} runs of {len(cases) + count} charts matched "
          f"Flowchart's ({proof.failed_runs} failed on both) in {time.time() - started:.1f} s")


if __name__ == "__main__":
    main()
