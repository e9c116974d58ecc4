"""Tab completion in the real shells: bash with bash-completion, zsh with compinit, fish. Each
shell runs interactively on a pseudo-terminal with `ejob completion SHELL` loaded; a partial
command line and a Tab are typed, and the completed word must appear: a command name, a flag,
a choice flag's value, a kubeconfig context, a local job's name, and a file (the job file) where
ejob says files fit. The kubeconfig names an unreachable cluster: completing a job's name must
still answer at once, with the local jobs.

Usage: check_completion.py EJOB
"""
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: me
  user: {token: t}
contexts:
- name: dev
  context: {cluster: nowhere, user: me, namespace: team}
- name: prod
  context: {cluster: nowhere, user: me}
current-context: dev
"""

# (typed before the Tab, what the completion must show)
CASES = [
    ("ejob sub", "submit"),
    ("ejob submit --ou", "--output"),
    ("ejob submit --spot ka", "karpenter"),
    ("ejob list --context pr", "prod"),
    ("ejob list -n te", "team"),
    ("ejob logs hel", "hello"),
    ("ejob template jo", "job.yaml"),
]

STARTS = {
    "bash": (["bash", "--norc", "--noprofile", "-i"],
             "source /usr/share/bash-completion/bash_completion; "
             "source <(ejob completion bash)"),
    "zsh": (["zsh", "-f", "-i"],
            "autoload -U compinit; compinit -u; source <(ejob completion zsh)"),
    "fish": (["fish", "--no-config", "-i"], "ejob completion fish | source"),
}


class Terminal:
    """A shell on a pseudo-terminal: type, then read what it shows."""

    def __init__(self, argv, env, cwd):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        self.seen = ""

    def type(self, text):
        os.write(self.fd, text.encode())

    def wait_for(self, pattern, timeout=15):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if re.search(pattern, self.seen):
                return True
            ready, _, _ = select.select([self.fd], [], [], 0.2)
            if ready:
                try:
                    self.seen += os.read(self.fd, 65536).decode(errors="replace")
                except OSError:
                    return False
        return bool(re.search(pattern, self.seen))

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        os.close(self.fd)


def check_shell(shell, env, cwd):
    """The cases that fail in `shell`, with what it showed."""
    argv, setup = STARTS[shell]
    term = Terminal(argv, env, cwd)
    failed = []
    try:
        term.type(setup + "; echo READY-$((6*7))\n" if shell != "fish" else
                  setup + "; echo READY-(math 6 \\* 7)\n")
        if not term.wait_for(r"READY-42"):
            return ["%s did not start: %r" % (shell, term.seen[-500:])]
        for typed, expected in CASES:
            term.seen = ""
            term.type(typed + "\t")
            if not term.wait_for(re.escape(expected), timeout=10):
                term.type("\t")  # a second Tab lists the candidates where one does not fit
                if not term.wait_for(re.escape(expected), timeout=5):
                    failed.append("%s: %r + Tab showed no %r: %r" % (
                        shell, typed, expected, term.seen[-300:]))
            term.type("\x15")  # Ctrl-U: the line emptied, in each of the three shells
            time.sleep(0.3)
    finally:
        term.close()
    return failed


def main(ejob):
    home = tempfile.mkdtemp(prefix="ejob-completion-")
    try:
        os.makedirs(os.path.join(home, ".kube"))
        with open(os.path.join(home, ".kube", "config"), "w") as f:
            f.write(KUBECONFIG)
        work = os.path.join(home, "work")
        os.makedirs(work)
        with open(os.path.join(work, "job.yaml"), "w") as f:
            f.write("script: hello.py\n")
        with open(os.path.join(work, "hello.py"), "w") as f:
            f.write("print('hello')\n")
        bin_dir = os.path.dirname(os.path.abspath(ejob))  # ejob and ejob-agent, typed as `ejob`
        env = dict(os.environ, HOME=home, XDG_STATE_HOME=os.path.join(home, "state"),
                   XDG_CONFIG_HOME=os.path.join(home, "config"),
                   PATH=bin_dir + ":" + os.environ.get("PATH", "/usr/bin:/bin"), TERM="dumb")
        env.pop("KUBECONFIG", None)
        subprocess.run([os.path.join(bin_dir, "ejob"), "submit", "--local", "--exact-name",
                        "--name", "hello", "--wait", "--", "hello.py"], cwd=work, env=env,
                       check=True, capture_output=True, timeout=120)
        failed = []
        for shell in STARTS:
            failed += check_shell(shell, env, work)
        subprocess.run([os.path.join(bin_dir, "ejob"), "delete", "hello", "--context", "local"],
                       cwd=work, env=env, capture_output=True, timeout=60)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    for line in failed:
        print("completion: " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
