#!/usr/bin/env python3
"""Runs one of docs/ci.md's container recipes with podman, as written, to
prove it works. compose runs with podman-compose itself; gitlab as GitLab's
runner runs a job (see gitlab()); the two GitHub recipes as GitHub's
runner would, by podman here (what that cannot check: GitHub's own wait for
a service's health check, which this runs with podman healthcheck run).
In each: the sandbox service is a container of the image (every
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
    """As GitLab's runner runs a job (docker executor, a network per job):
    each service a container of its image on the job's network, named by
    its alias, with the job's variables and its own; the script, lines
    joined, in the shell of the job's image (bnpl and a shell:
    app_context) with the job's variables. What this cannot check: the
    runner's own wait for a service's ports (the script's bnpl sandbox
    wait is the check either way), and lines that stand for your
    application, left out."""
    (_, job), = doc.items()
    r.make_network()
    variables = job.get("variables") or {}
    for svc in job["services"]:
        env = dict(variables)
        env.update(svc.get("variables") or {})
        r.service(svc["alias"], env, alias=svc["alias"])
    ctx = os.path.join(r.workdir, "job-image")
    app_context(r, ctx)
    job_image = "localhost/bnpl-recipe-job:" + r.tag
    podman("build", "--isolation", "chroot", "-q", "-t", job_image, ctx)
    atexit.register(lambda: podman("rmi", "-f", job_image, check=False))
    lines = []
    for line in job["script"]:
        if line.split()[0] != "bnpl":
            print("  left out (stands for your application): %s" % line, flush=True)
            continue
        lines.append(line)
    print("  job: the script in %s (a shell and bnpl), standing for %s" % (job_image, image_of(job["image"])), flush=True)
    args = ["run", "--rm"] + LIMITS + r.env_args(variables) + ["--network", r.network, job_image, "sh", "-e", "-c", "\n".join(lines)]
    res = podman(*args, check=False)
    out = (res.stdout or "") + (res.stderr or "")
    print("  $ %s -> exit %d" % (" && ".join(lines), res.returncode), flush=True)
    if res.returncode != 0:
        print(out, file=sys.stderr)
        sys.exit("recipe: the job's script failed")
    if not re.search(r"capture rest\s+passed", out):
        print(out, file=sys.stderr)
        sys.exit("recipe: smoke ran no money steps")
    print("    " + out.strip().splitlines()[-1], flush=True)


COMPOSE = ["podman-compose", "--podman-args=--storage-driver vfs --runtime runc",
           "--podman-run-args=" + " ".join(LIMITS), "--podman-build-args=--isolation chroot"]


def app_context(r, into):
    """The build context of the recipe's app (`build: .`): bnpl with a
    shell, as an application's test image has one. No registry is
    reachable here, so the image is made of this machine's dash, its C
    library and the snapshot's bnpl."""
    root = os.path.join(into, "rootfs")
    for d in ("bin", "usr/bin", "tmp"):
        os.makedirs(os.path.join(root, d), exist_ok=True)
    shutil.copy(os.path.realpath("/bin/dash"), os.path.join(root, "bin", "sh"))
    shutil.copy(os.path.join(r.bnpl_dir, "bnpl"), os.path.join(root, "usr", "bin", "bnpl"))
    out = subprocess.run(["ldd", "/bin/dash"], capture_output=True, text=True, check=True).stdout
    for lib in re.findall(r"(/\S+\.so[.\d]*)", out):
        dest = os.path.join(root, lib.lstrip("/"))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy(os.path.realpath(lib), dest)
    os.chmod(os.path.join(root, "tmp"), 0o1777)
    with open(os.path.join(into, "Containerfile"), "w") as f:
        f.write("FROM scratch\nCOPY rootfs/ /\nENV PATH=/usr/bin:/bin HOME=/tmp\nWORKDIR /tmp\n")


def compose(r, doc):
    """The compose file run by podman-compose as Debian 12 ships it: the
    image named is the image under test, published ports free loopback
    ports, `build: .` a context of bnpl and a shell (app_context). What
    podman-compose 1.0.3 cannot show, and so this cannot check: it starts
    a service once the ones it depends on are started, not healthy (the
    condition is Docker Compose's; the app's own wait covers both), and
    it runs no health check timers without systemd (the check is run
    here with podman healthcheck run, as its timer would)."""
    project = "bnpl-recipe-" + r.tag
    services = doc["services"]
    for name, svc in services.items():
        if "image" in svc:
            svc["image"] = r.image
        svc["ports"] = [r.publish(p)[1] for p in svc.get("ports", [])]
        if not svc["ports"]:
            del svc["ports"]
        if "build" in svc:
            app_context(r, r.workdir)
        svc["environment"] = {k: r.follow_ports(str(v)) for k, v in (svc.get("environment") or {}).items()}
    path = os.path.join(r.workdir, "compose.yml")
    with open(path, "w") as f:
        yaml.safe_dump(doc, f, sort_keys=False)
    base = COMPOSE + ["-p", project, "-f", path]
    built = ["%s_%s" % (project, name) for name, svc in services.items() if "build" in svc]
    # Last registered, first run: down, then the network it leaves (1.0.3
    # does not remove it) and the images up built.
    atexit.register(lambda: [podman("rmi", "-f", image, check=False) for image in built])
    atexit.register(lambda: podman("network", "rm", "-f", project + "_default", check=False))
    atexit.register(lambda: subprocess.run(base + ["down"], capture_output=True))
    said = subprocess.run(["podman-compose", "version"], capture_output=True, text=True).stdout
    version = "; ".join(" ".join(m.split()) for m in re.findall(r"^(?:podman-composer? version|podman version)\s+\S+", said, re.M))
    up = subprocess.run(base + ["up", "-d"], capture_output=True, text=True, cwd=r.workdir)
    if up.returncode != 0:
        print(up.stdout + up.stderr, file=sys.stderr)
        sys.exit("recipe: podman-compose up failed")
    print("  %s up -d: %s" % (version.strip() or "podman-compose", ", ".join(services)), flush=True)
    for name, svc in services.items():
        cname = "%s_%s_1" % (project, name)
        if "image" in svc:
            test = podman("inspect", "--format", "{{json .Config.Healthcheck.Test}}", cname).stdout.strip()
            if "/bin/sh" in test or "CMD" not in test:
                sys.exit("recipe: the health check of %s is %s: the image has no shell, it must be the exec form" % (name, test))
            r.healthy(cname)
            print("  %s: healthy by its health check %s" % (name, test), flush=True)
            continue
        code = podman("wait", cname).stdout.strip()
        out = podman("logs", cname).stdout + podman("logs", cname).stderr
        print("  %s: %s -> exit %s" % (name, " ".join(svc.get("command") or []), code), flush=True)
        if code != "0":
            print(out, file=sys.stderr)
            sys.exit("recipe: %s failed" % name)
        if not re.search(r"capture rest\s+passed", out):
            print(out, file=sys.stderr)
            sys.exit("recipe: smoke ran no money steps")
        print("    " + out.strip().splitlines()[-1], flush=True)


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
