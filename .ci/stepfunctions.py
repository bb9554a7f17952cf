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

Usage: python .ci/stepfunctions.py <path of the flowchart tool>
"""

import glob
import json
import re
import subprocess
import sys
import time

import boto3
from moto import mock_aws
from moto.core.responses import EmptyResult
from moto.stepfunctions.responses import StepFunctionResponse


def send_task_failure(self):
    """moto's SendTaskFailure, passing on the cause, which moto 5.2 drops."""
    self.stepfunction_backend.send_task_failure(
        self._get_param("taskToken"), error=self._get_param("error"), cause=self._get_param("cause")
    )
    return EmptyResult()


StepFunctionResponse.send_task_failure = send_task_failure

TOOL = sys.argv[1]
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


def flowchart_run(chart, context):
    result = tool("run", chart, "--context", json.dumps(context))
    if result.returncode != 0:
        return {"status": "FAILED", "path": None, "context": None, "text": result.stderr}
    lines = dict(line.split(": ", 1) for line in result.stdout.splitlines() if ": " in line)
    return {
        "status": "SUCCEEDED",
        "path": lines["Path"].split(" -> "),
        "context": json.loads(lines["Context"]),
    }


def step_functions_run(sfn, sqs, queue_url, machine_arn, chart, context, names, run):
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
            answer = tool("handle", chart, stdin=json.dumps(payload))
            tasks += 1
            reply = json.loads(answer.stdout)
            if answer.returncode == 0:
                sfn.send_task_success(taskToken=token, output=json.dumps(reply))
            else:
                sfn.send_task_failure(taskToken=token, error=reply["error"], cause=reply["cause"])
            sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=message["ReceiptHandle"])
        status = sfn.describe_execution(executionArn=arn)
        if status["status"] != "RUNNING":
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


@mock_aws(config={"stepfunctions": {"execute_state_machine": True}})
def main():
    started = time.time()
    definitions = {}
    for chart in sorted(glob.glob("Samples/*.json")) + [".ci/stepfunctions/photo-book.json"]:
        result = tool("export", chart, "--asl")
        if result.returncode != 0:
            print(f"{chart}: refused, as expected of what ASL cannot say:\n{result.stderr}", end="")
            continue
        with open(f"/tmp/flowchart-{abs(hash(chart))}.asl.json", "w") as file:
            file.write(result.stdout)
        lint = subprocess.run(["statelint", file.name], capture_output=True, text=True)
        if lint.returncode != 0:
            raise SystemExit(f"{chart}: statelint rejects the definition:\n{lint.stdout}{lint.stderr}")
        definitions[chart] = result.stdout
        print(f"{chart}: exported, statelint clean ({len(result.stdout)} bytes)")

    sqs = boto3.client("sqs", region_name="us-east-1")
    sfn = boto3.client("stepfunctions", region_name="us-east-1")
    queue_url = sqs.create_queue(QueueName=QUEUE)["QueueUrl"]
    with open(".ci/stepfunctions/cases.json") as file:
        cases = json.load(file)["charts"]
    runs = 0
    for index, (chart, contexts) in enumerate(cases.items()):
        definition = json.loads(definitions[chart])
        names = comments(definition, {})
        machine = sfn.create_state_machine(
            name=f"chart{index}", definition=definitions[chart],
            roleArn="arn:aws:iam::123456789012:role/flowchart",
        )["stateMachineArn"]
        has_parallel = '"Type": "Parallel"' in definitions[chart]
        for context in contexts:
            expected = flowchart_run(chart, context)
            actual = step_functions_run(sfn, sqs, queue_url, machine, chart, context, names, runs)
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
            runs += 1
            print(f"{chart} on {json.dumps(context)}: same, {actual['status'].lower()}, "
                  f"{len(actual['path'])} states, {actual['tasks']} tasks")
    print(f"Step Functions: {runs} runs of {len(cases)} charts matched Flowchart's "
          f"in {time.time() - started:.1f} s")


if __name__ == "__main__":
    main()
