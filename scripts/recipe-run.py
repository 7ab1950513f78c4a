#!/usr/bin/env python3
"""Runs one of docs/ci.md's container recipes with podman, as written, to
prove it works: the sandbox service is a container of the image (every
image the recipe names stands for it), reached by its service name on a
network of its own; the job's bnpl commands run in a second container of
the image with the job's variables (or, for a job on the runner, on this
machine with the snapshot's bnpl); published ports become free loopback
ports, and the recipe's URLs follow them. Steps that stand for the
reader's application (make integration-test) are left out, and said so.

Usage: recipe-run.py KIND RECIPE.yml --image IMAGE [--bnpl DIR]
  KIND: github-service | github-container-job | gitlab | compose
Exits 0 when every bnpl command passed and smoke ran its money steps.
"""
import argparse
import atexit
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid

import yaml

PODMAN = ["podman", "--storage-driver", "vfs", "--runtime", "runc"]
# The container runtime here cannot raise these limits to the defaults.
LIMITS = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"]


def podman(*args, check=True, capture=True):
    r = subprocess.run(PODMAN + list(args), capture_output=capture, text=True)
    if check and r.returncode != 0:
        sys.exit("recipe: podman %s failed (%d): %s" % (" ".join(args), r.returncode, (r.stderr or "").strip()))
    return r


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Recipe:
    def __init__(self, image, bnpl_dir):
        self.image = image
        self.bnpl_dir = bnpl_dir
        self.tag = uuid.uuid4().hex[:8]
        self.network = None
        self.containers = []
        self.ports = {}  # the recipe's host port -> the free one used here
        self.workdir = tempfile.mkdtemp(prefix="bnpl-recipe-")
        atexit.register(self.cleanup)

    def cleanup(self):
        for c in self.containers:
            podman("rm", "-f", "-v", c, check=False)
        if self.network:
            podman("network", "rm", "-f", self.network, check=False)
        shutil.rmtree(self.workdir, ignore_errors=True)

    def make_network(self):
        self.network = "bnpl-recipe-" + self.tag
        podman("network", "create", self.network)

    def publish(self, spec):
        """A ports entry ("8700:8700", "127.0.0.1:8700:8700") as -p
        arguments on a free loopback port."""
        parts = str(spec).split(":")
        host, ctr = parts[-2], parts[-1]
        self.ports.setdefault(host, str(free_port()))
        return ["-p", "127.0.0.1:%s:%s" % (self.ports[host], ctr)]

    def follow_ports(self, value):
        """The recipe's localhost URLs, on the ports used here."""
        for host, used in self.ports.items():
            value = re.sub(r"(localhost|127\.0\.0\.1):%s\b" % host, r"\g<1>:%s" % used, value)
        return value

    def env_args(self, env):
        out = []
        for k, v in (env or {}).items():
            out += ["-e", "%s=%s" % (k, self.follow_ports(str(v)))]
        return out

    def service(self, name, env, ports=(), alias=None):
        cname = "bnpl-recipe-%s-%s" % (self.tag, re.sub(r"[^a-z0-9-]", "-", name))
        args = ["run", "-d", "--name", cname, "--health-interval", "disable"] + LIMITS
        args += self.env_args(env)
        if self.network:
            args += ["--network", self.network, "--network-alias", alias or name]
        for p in ports:
            args += self.publish(p)
        podman(*args + [self.image])
        self.containers.append(cname)
        print("  service %s: a container of %s%s" % (alias or name, self.image,
              " on ports " + ", ".join("%s->%s" % kv for kv in self.ports.items()) if ports else ""), flush=True)
        return cname

    def healthy(self, cname, check=None, timeout=60):
        """Waits for the image's HEALTHCHECK (or the recipe's own check,
        run in the container), as GitHub and compose do."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            if check:
                r = podman("exec", cname, *check, check=False)
            else:
                r = podman("healthcheck", "run", cname, check=False)
            if r.returncode == 0:
                return
            state = podman("inspect", "--format", "{{.State.Status}}", cname, check=False).stdout.strip()
            if state in ("exited", "stopped"):
                break
            time.sleep(0.2)
        print(podman("logs", cname, check=False).stdout, file=sys.stderr)
        sys.exit("recipe: the service %s did not become healthy" % cname)

    def in_container(self, env, argv):
        """A job's command in a container of the image on the network."""
        args = ["run", "--rm"] + LIMITS + self.env_args(env)
        args += ["--network", self.network, self.image] + argv
        return podman(*args, check=False)

    def on_runner(self, env, line):
        """A job's step on this machine, bnpl from the snapshot."""
        e = dict(os.environ)
        e.update({k: self.follow_ports(str(v)) for k, v in (env or {}).items()})
        e["PATH"] = self.bnpl_dir + os.pathsep + e.get("PATH", "")
        e["CI"] = "true"
        # In a directory of the job's own: what it writes (a JUnit file)
        # stays out of the repository.
        return subprocess.run(["bash", "-eo", "pipefail", "-c", line], env=e, capture_output=True, text=True, cwd=self.workdir)

    def run_lines(self, lines, env, where):
        smoked = False
        for line in lines:
            line = line.split(" #")[0].strip()
            argv = shlex.split(line)
            if not argv or argv[0] != "bnpl":
                print("  left out (stands for your application): %s" % line, flush=True)
                continue
            r = self.in_container(env, argv[1:]) if where == "container" else self.on_runner(env, line)
            out = (r.stdout or "") + (r.stderr or "")
            print("  $ %s -> exit %d" % (line, r.returncode), flush=True)
            if r.returncode != 0:
                print(out, file=sys.stderr)
                sys.exit("recipe: %s failed" % line)
            if argv[1:2] == ["smoke"]:
                if not re.search(r"capture rest\s+passed", out):
                    print(out, file=sys.stderr)
                    sys.exit("recipe: smoke ran no money steps")
                smoked = True
                print("    " + out.strip().splitlines()[-1], flush=True)
        if not smoked:
            sys.exit("recipe: no bnpl smoke step ran")


def image_of(spec):
    return spec if isinstance(spec, str) else spec.get("image") or spec.get("name")


def github_service(r, doc):
    job = next(iter(doc["jobs"].values()))
    (name, svc), = job["services"].items()
    cname = r.service(name, svc.get("env"), svc.get("ports", ()))
    r.healthy(cname)
    lines = [s["run"] for s in job["steps"] if "run" in s]
    for s in job["steps"]:
        if "uses" in s:
            print("  left out: uses %s (bnpl is the snapshot's here)" % s["uses"], flush=True)
    r.run_lines(lines, job.get("env"), "runner")


def github_container_job(r, doc):
    job = next(iter(doc["jobs"].values()))
    r.make_network()
    (name, svc), = job["services"].items()
    cname = r.service(name, svc.get("env"))
    r.healthy(cname)
    print("  job container: %s stands for %s" % (r.image, image_of(job["container"])), flush=True)
    r.run_lines([s["run"] for s in job["steps"] if "run" in s], job.get("env"), "container")


def gitlab(r, doc):
    (_, job), = doc.items()
    r.make_network()
    for svc in job["services"]:
        r.service(svc["alias"], svc.get("variables"), alias=svc["alias"])
    # GitLab starts the script without waiting: the script's wait is the check.
    print("  job container: %s stands for %s" % (r.image, image_of(job["image"])), flush=True)
    r.run_lines(job["script"], job.get("variables"), "container")


def compose(r, doc):
    r.make_network()
    services = doc["services"]
    started = {}
    for name, svc in services.items():
        if "image" not in svc:
            continue
        cname = r.service(name, svc.get("environment"), svc.get("ports", ()), alias=name)
        test = (svc.get("healthcheck") or {}).get("test")
        r.healthy(cname, check=test[1:] if test and test[0] == "CMD" else None)
        started[name] = cname
    for name, svc in services.items():
        if name in started:
            continue
        for dep, cond in (svc.get("depends_on") or {}).items():
            if cond.get("condition") == "service_healthy" and dep not in started:
                sys.exit("recipe: %s depends on %s, which is not a service here" % (name, dep))
        print("  %s: a container of %s stands for its build" % (name, r.image), flush=True)
        r.run_lines([" ".join(shlex.quote(a) for a in svc["command"])], svc.get("environment"), "container")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kind", choices=["github-service", "github-container-job", "gitlab", "compose"])
    ap.add_argument("recipe")
    ap.add_argument("--image", required=True)
    ap.add_argument("--bnpl", default="", help="the directory of the bnpl a job on the runner uses")
    args = ap.parse_args()
    doc = yaml.safe_load(open(args.recipe))
    r = Recipe(args.image, os.path.abspath(args.bnpl) if args.bnpl else "")
    {"github-service": github_service, "github-container-job": github_container_job,
     "gitlab": gitlab, "compose": compose}[args.kind](r, doc)
    print("recipe %s passed" % args.kind, flush=True)


if __name__ == "__main__":
    main()
