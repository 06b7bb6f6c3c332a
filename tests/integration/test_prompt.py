"""-p without a value asks for the password on the terminal, without echo;
Ctrl-C at the prompt ends the run quietly. Driven through a pseudo-terminal,
as a person at a terminal would."""

import os
import pty
import select
import signal
import time

import mmp


def spawn(args):
    """The binary on a new pseudo-terminal; returns (pid, master fd)."""
    pid, fd = pty.fork()
    if pid == 0:
        env = mmp.base_env(MYSQL_PWD=None)
        os.execve(mmp.BIN, [mmp.BIN] + args, env)
    return pid, fd


def read_until(fd, needle, timeout=10):
    out = b""
    deadline = time.monotonic() + timeout
    while needle not in out and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.2)[0]:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return out


def wait(pid, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    raise AssertionError("the program did not end")


class Prompt(mmp.TestCase):

    def test_password_typed_without_echo(self):
        pid, fd = spawn(["--socket", mmp.SOCKET, "-u", "mmp", "-p",
                         "--list", "--format", "csv"])
        try:
            self.assertIn(b"Enter password:", read_until(fd, b"password:"))
            os.write(fd, mmp.MMP_PASSWORD.encode() + b"\n")
            out = read_until(fd, b"FOREGROUND")
            self.assertEqual(wait(pid), 0, out)
            self.assertNotIn(mmp.MMP_PASSWORD.encode(), out)
            self.assertIn(b"thread_id,connection_id", out)
        finally:
            os.close(fd)

    def test_ctrl_c_at_the_prompt(self):
        pid, fd = spawn(["--socket", mmp.SOCKET, "-u", "mmp", "-p",
                         "--list"])
        try:
            read_until(fd, b"password:")
            os.write(fd, b"half")
            time.sleep(0.2)
            os.write(fd, b"\x03")  # the terminal sends SIGINT
            out = read_until(fd, b"never", timeout=2)
            self.assertEqual(wait(pid), 0, out)
            self.assertNotIn(b"thread_id", out)
            self.assertNotIn(b"mysqlmemprof:", out)
        finally:
            os.close(fd)
