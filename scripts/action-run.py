#!/usr/bin/env python3
"""Runs a GitHub Actions job on this machine, as a runner would, for the
action's tests (scripts/action-test.sh): the job's `run` steps in bash and
its `uses` steps of a local composite action (action.yml), with what a
runner gives a step: the ${{ }} expressions of inputs, steps, env, job,
runner and github; `if` with success(), failure() and always(); the
GITHUB_OUTPUT, GITHUB_ENV and GITHUB_PATH files; outputs; the job's
status. `act` does the same in Docker, which this machine cannot run.

A runner of another OS is simulated on Linux: --os macOS gives macOS's
names and a tool cache under a path with spaces; --os Windows gives
drive-letter paths (C:\\hostedtoolcache\\windows, D:\\a\\_temp, and the
GITHUB_* files there), each drive a directory of --work, with a cygpath
that converts between them as Git Bash's does. The action's script sees
what it would see on such a runner; the binary it installs is whatever the
release served for that OS holds.

Usage: action-run.py JOB.yml --work DIR [--os Linux|macOS|Windows]
         [--arch X64|ARM64] [--action OWNER/REPO@REF=DIR]... [--env K=V]...
         [--tool-cache PATH] [--input-default NAME=VALUE]...
JOB.yml holds one job: {env: {...}, steps: [...]}, or a workflow whose
first job is run. Other actions (actions/checkout...) are skipped and said
so. Exits with the job's status: 0 when it succeeded.
"""
import argparse
import os
import re
import subprocess
import sys
import uuid

import yaml


class ExprError(Exception):
    pass


TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>-?\d+(?:\.\d+)?)|(?P<op>==|!=|&&|\|\||!|\(|\)|,)|(?P<name>[A-Za-z_][A-Za-z0-9_.\-]*))")


def evaluate(expr, ctx):
    """Evaluates an Actions expression: literals, context properties,
    ==, !=, &&, ||, !, parentheses and the status functions."""
    tokens, pos = [], 0
    expr = expr.strip()
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise ExprError("cannot read %r at %d" % (expr, pos))
        pos = m.end()
        kind = m.lastgroup
        tokens.append((kind, m.group(kind)))
    tokens.append(("end", None))
    i = [0]

    def peek():
        return tokens[i[0]]

    def take():
        t = tokens[i[0]]
        i[0] += 1
        return t

    def primary():
        kind, val = take()
        if kind == "str":
            return val[1:-1].replace("''", "'")
        if kind == "num":
            return float(val)
        if kind == "op" and val == "(":
            v = disjunction()
            if take() != ("op", ")"):
                raise ExprError("missing ) in %r" % expr)
            return v
        if kind == "op" and val == "!":
            return not truthy(primary())
        if kind == "name":
            if peek() == ("op", "("):
                take()
                if take() != ("op", ")"):
                    raise ExprError("functions take no arguments here: %r" % expr)
                return call(val, ctx)
            if val in ("true", "false"):
                return val == "true"
            if val == "null":
                return None
            return lookup(val, ctx)
        raise ExprError("unexpected %r in %r" % (val, expr))

    def comparison():
        left = primary()
        while peek() in (("op", "=="), ("op", "!=")):
            op = take()[1]
            right = primary()
            equal = loose(left) == loose(right)
            left = equal if op == "==" else not equal
        return left

    def conjunction():
        left = comparison()
        while peek() == ("op", "&&"):
            take()
            right = comparison()
            left = right if truthy(left) else left
        return left

    def disjunction():
        left = conjunction()
        while peek() == ("op", "||"):
            take()
            right = conjunction()
            left = left if truthy(left) else right
        return left

    value = disjunction()
    if peek()[0] != "end":
        raise ExprError("unexpected %r in %r" % (peek()[1], expr))
    return value


def loose(v):
    # Actions compares strings case-insensitively.
    return v.lower() if isinstance(v, str) else v


def truthy(v):
    return v not in (None, False, "", 0, 0.0)


def call(name, ctx):
    status = ctx["_status"]
    if name == "always":
        return True
    if name == "success":
        return status == "success"
    if name == "failure":
        return status == "failure"
    if name == "cancelled":
        return False
    raise ExprError("unknown function %s()" % name)


def lookup(path, ctx):
    value = ctx
    for part in path.split("."):
        if isinstance(value, dict):
            value = value.get(part, "")
        else:
            return ""
    return value


def render(text, ctx):
    """Substitutes every ${{ expr }} in text."""
    if not isinstance(text, str):
        return text

    def one(m):
        v = evaluate(m.group(1), ctx)
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, float) and v.is_integer():
            return str(int(v))
        return "" if v is None else str(v)

    return re.sub(r"\$\{\{(.*?)\}\}", one, text)


def condition(text, ctx):
    """Whether a step with `if: text` runs: success() unless the condition
    asks for a status itself."""
    if text is None or text == "":
        return ctx["_status"] == "success"
    text = str(text).strip()
    m = re.fullmatch(r"\$\{\{(.*)\}\}", text, re.S)
    if m:
        text = m.group(1)
    if not re.search(r"\b(always|success|failure|cancelled)\s*\(", text):
        text = "success() && (%s)" % text
    return truthy(evaluate(text, ctx))


class Runner:
    def __init__(self, args):
        self.os = args.os
        self.arch = args.arch
        self.work = os.path.abspath(args.work)
        self.actions = dict(a.split("=", 1) for a in args.action)
        self.input_defaults = dict(a.split("=", 1) for a in args.input_default)
        self.extra_env = dict(e.split("=", 1) for e in args.env)
        self.path_prefix = []
        self.job_env = {}
        os.makedirs(self.work, exist_ok=True)
        self.bin = os.path.join(self.work, "runner-bin")
        os.makedirs(self.bin, exist_ok=True)
        if self.os == "Windows":
            self.temp_native = "D:\\a\\_temp"
            self.cache_native = args.tool_cache or "C:\\hostedtoolcache\\windows"
            self.write_cygpath()
        elif self.os == "macOS":
            self.temp_native = os.path.join(self.work, "Users", "runner", "work", "_temp")
            self.cache_native = args.tool_cache or os.path.join(self.work, "Users", "runner", "hosted tool cache")
        else:
            self.temp_native = os.path.join(self.work, "_temp")
            self.cache_native = args.tool_cache or os.path.join(self.work, "hostedtoolcache")
        os.makedirs(self.posix(self.temp_native), exist_ok=True)
        self.workspace = os.path.join(self.work, "workspace")
        os.makedirs(self.workspace, exist_ok=True)

    # Windows paths: drive X: is the directory WORK/drive-x.
    def posix(self, native):
        m = re.match(r"^([A-Za-z]):[\\/]?(.*)$", native)
        if not m:
            return native
        rest = m.group(2).replace("\\", "/")
        return os.path.join(self.work, "drive-" + m.group(1).lower(), rest)

    def native(self, path):
        if self.os != "Windows":
            return path
        m = re.match(re.escape(self.work) + r"/drive-([a-z])(?:/(.*))?$", path)
        if not m:
            return path
        return m.group(1).upper() + ":\\" + (m.group(2) or "").replace("/", "\\")

    def write_cygpath(self):
        script = os.path.join(self.bin, "cygpath")
        with open(script, "w") as f:
            f.write("#!/bin/sh\n# Git Bash's path converter, for drives simulated under %s.\n" % self.work)
            f.write('mode=$1; shift\nexec python3 %r "$mode" "$1"\n' % os.path.join(self.bin, "cygpath.py"))
        with open(os.path.join(self.bin, "cygpath.py"), "w") as f:
            f.write(
                "import os, re, sys\n"
                "work = %r\n"
                "mode, p = sys.argv[1], sys.argv[2]\n"
                "if mode == '-u':\n"
                "    m = re.match(r'^([A-Za-z]):[\\\\/]?(.*)$', p)\n"
                "    print(os.path.join(work, 'drive-' + m.group(1).lower(), m.group(2).replace('\\\\', '/')) if m else p)\n"
                "elif mode == '-w':\n"
                "    m = re.match(re.escape(work) + r'/drive-([a-z])(?:/(.*))?$', p)\n"
                "    print(m.group(1).upper() + ':\\\\' + (m.group(2) or '').replace('/', '\\\\') if m else p)\n"
                "else:\n"
                "    sys.exit('cygpath: only -u and -w')\n" % self.work)
        os.chmod(script, 0o755)

    def base_env(self):
        system_path = self.extra_env.get("PATH", os.environ.get("PATH", "/usr/bin:/bin"))
        env = {
            "PATH": os.pathsep.join(self.path_prefix + [self.bin, system_path]),
            "HOME": os.path.join(self.work, "home"),
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_RUN_ID": "4242",
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_WORKSPACE": self.workspace,
            "RUNNER_OS": self.os,
            "RUNNER_ARCH": self.arch,
            "RUNNER_TEMP": self.temp_native,
            "RUNNER_TOOL_CACHE": self.cache_native,
        }
        os.makedirs(env["HOME"], exist_ok=True)
        env.update({k: v for k, v in self.extra_env.items() if k != "PATH"})
        env.update(self.job_env)
        return env

    def context(self, status, steps, inputs=None, env=None):
        return {
            "_status": status,
            "inputs": inputs or {},
            "steps": steps,
            "env": env or {},
            "job": {"status": status},
            "runner": {"os": self.os, "arch": self.arch, "temp": self.temp_native},
            "github": {"workspace": self.workspace, "run_id": "4242"},
        }

    def bash(self, script, env, action_path=None):
        """Runs one `run` step; answers its exit status and outputs."""
        files = {}
        for name in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH"):
            native = self.temp_native + ("\\" if self.os == "Windows" else "/") + "_runner_file_commands" + ("\\" if self.os == "Windows" else "/") + name.lower() + "_" + uuid.uuid4().hex
            path = self.posix(native)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").close()
            files[name] = (native, path)
            env[name] = native
        if action_path:
            env["GITHUB_ACTION_PATH"] = action_path
        step_file = os.path.join(self.posix(self.temp_native), "step-%s.sh" % uuid.uuid4().hex)
        with open(step_file, "w") as f:
            if self.os == "Windows":
                # Git Bash runs NAME.exe for NAME: so do the simulated
                # runner's shells, and the bash scripts they start.
                f.write('command_not_found_handle() { if command -v "$1.exe" >/dev/null; then "$1.exe" "${@:2}"; '
                        'else echo "bash: $1: command not found" >&2; return 127; fi; }\n'
                        'export -f command_not_found_handle\n')
            f.write(script)
        rc = subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", step_file], env=env, cwd=self.workspace)
        outputs = parse_file(files["GITHUB_OUTPUT"][1])
        self.job_env.update(parse_file(files["GITHUB_ENV"][1]))
        for line in reversed(open(files["GITHUB_PATH"][1]).read().splitlines()):
            if line.strip():
                self.path_prefix.insert(0, self.posix(line.strip()))
        return rc, outputs

    def run_steps(self, steps, inputs=None, action_path=None, label=""):
        """Runs steps as a job or a composite action does; answers the
        status and the steps' context."""
        status, ctx_steps = "success", {}
        for n, step in enumerate(steps):
            name = step.get("name") or step.get("uses") or step.get("run", "").splitlines()[0]
            ctx = self.context(status, ctx_steps, inputs, self.base_env())
            if not condition(step.get("if"), ctx):
                print("[%s] skipped: %s" % (label or "job", name), flush=True)
                if step.get("id"):
                    ctx_steps[step["id"]] = {"outputs": {}, "outcome": "skipped", "conclusion": "skipped"}
                continue
            print("[%s] %s" % (label or "job", name), flush=True)
            env = self.base_env()
            for k, v in (step.get("env") or {}).items():
                env[k] = render(str(v), ctx)
            if "uses" in step:
                rc, outputs = self.uses(step, ctx)
            else:
                rc, outputs = self.bash(render(step["run"], ctx), env, action_path)
            outcome = "success" if rc == 0 else "failure"
            if rc != 0 and str(step.get("continue-on-error", "false")).lower() != "true":
                status = "failure"
                print("[%s] failed (exit %d): %s" % (label or "job", rc, name), flush=True)
            if step.get("id"):
                ctx_steps[step["id"]] = {"outputs": outputs, "outcome": outcome, "conclusion": outcome}
        return status, ctx_steps

    def uses(self, step, ctx):
        ref = step["uses"]
        where = self.actions.get(ref)
        if where is None:
            print("  (an action of another repository, %s: not part of this test, skipped)" % ref, flush=True)
            return 0, {}
        action = yaml.safe_load(open(os.path.join(where, "action.yml")))
        if action["runs"]["using"] != "composite":
            raise SystemExit("action-run: only composite actions run here")
        inputs = {}
        for k, spec in (action.get("inputs") or {}).items():
            inputs[k] = self.input_defaults.get(k, str(spec.get("default", "")))
        for k, v in (step.get("with") or {}).items():
            if k not in inputs:
                raise SystemExit("action-run: %s has no input %s" % (ref, k))
            if isinstance(v, bool):
                v = "true" if v else "false"
            inputs[k] = render(str(v), ctx)
        status, steps = self.run_steps(action["runs"]["steps"], inputs, action_path=where, label=ref)
        actx = self.context(status, steps, inputs, self.base_env())
        outputs = {k: render(spec.get("value", ""), actx) for k, spec in (action.get("outputs") or {}).items()}
        return (0 if status == "success" else 1), outputs


def parse_file(path):
    """NAME=value lines and NAME<<DELIM heredocs, as runners read them."""
    out, lines, i = {}, open(path).read().splitlines(), 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            value = []
            while i < len(lines) and lines[i] != delim:
                value.append(lines[i])
                i += 1
            i += 1
            out[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("job")
    ap.add_argument("--work", required=True)
    ap.add_argument("--os", default="Linux", choices=["Linux", "macOS", "Windows"])
    ap.add_argument("--arch", default="X64", choices=["X64", "ARM64"])
    ap.add_argument("--action", action="append", default=[])
    ap.add_argument("--env", action="append", default=[])
    ap.add_argument("--input-default", action="append", default=[],
                    help="NAME=VALUE: the default of a local action's input, in place of its action.yml's (a mirror, a snapshot's version)")
    ap.add_argument("--tool-cache")
    args = ap.parse_args()
    doc = yaml.safe_load(open(args.job))
    job = doc
    if "jobs" in doc:
        job = next(iter(doc["jobs"].values()))
    runner = Runner(args)
    runner.job_env.update({k: str(v) for k, v in (job.get("env") or {}).items()})
    status, _ = runner.run_steps(job["steps"])
    print("job %s" % ("succeeded" if status == "success" else "failed"), flush=True)
    sys.exit(0 if status == "success" else 1)


if __name__ == "__main__":
    main()
