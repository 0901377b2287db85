"""Shared by scripts/bench-peers and scripts/bench-scaling: timing with hyperfine, peak memory with
/usr/bin/time, a throwaway `docpreview serve`, and the Markdown / gnuplot output."""

import http.client
import json
import os
import platform
import shutil
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LARGE = Path(os.environ.get("DOCPREVIEW_LARGE_SAMPLES", ROOT / "Samples" / "large"))


def prepare(inputs="mixed"):
    """Installs the tools, builds the release binary, checks the large samples (the folder `inputs`
    in them, when named); returns the binary. DOCPREVIEW_BENCH_BINARY names a binary to measure
    instead of building one (an older build, for a before and after in one sitting)."""
    subprocess.run([ROOT / "scripts" / "install-deps", "--tools"], check=True)
    binary = os.environ.get("DOCPREVIEW_BENCH_BINARY") or subprocess.run([ROOT / "scripts" / "build-release"], check=True,
                                                                         capture_output=True, text=True).stdout.strip()
    if inputs and not (LARGE / inputs).is_dir():
        flag = "--office" if inputs == "office" else "--large"
        sys.exit(f"{LARGE / inputs} is missing: run scripts/make-samples {flag} {LARGE if flag == '--large' else LARGE / inputs}")
    return binary


def hyperfine(commands, runs, warmup=2, prepare_command=None, shell=False):
    """Median, mean and standard deviation in ms of each command, and its mean CPU time (user and
    system, ms), timed by hyperfine in one run."""
    with tempfile.NamedTemporaryFile(suffix=".json") as export:
        arguments = ["hyperfine", "--style", "none", "--warmup", str(warmup), "--runs", str(runs),
                     "--export-json", export.name]
        if not shell:
            arguments.append("-N")
        if prepare_command:
            arguments += ["--prepare", prepare_command]
        subprocess.run(arguments + list(commands), check=True, stdout=subprocess.DEVNULL)
        results = json.load(open(export.name))["results"]
    return [{"median": r["median"] * 1000, "mean": r["mean"] * 1000, "stddev": (r["stddev"] or 0) * 1000,
             "cpu": (r["user"] + r["system"]) * 1000} for r in results]


def peak_rss_mb(command, shell=False):
    """Peak resident memory of one run of `command` (largest process, children included), in MB."""
    arguments = ["/usr/bin/time", "-f", "%M"] + (["bash", "-c", command] if shell else command.split())
    completed = subprocess.run(arguments, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
    return int(completed.stderr.strip().splitlines()[-1]) / 1024


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def free_seaweedfs_port():
    """An S3 port for scripts/seaweedfs whose other ports (PORT+1…PORT+5 and each of PORT…PORT+5
    plus 10000, its gRPC ports) are free and below 65536 too: a free port from the kernel alone
    puts the gRPC ports out of range once it is above 55530."""
    for _ in range(200):
        port = random.randrange(20000, 45000)
        wanted = [port + offset + grpc for offset in range(6) for grpc in (0, 10000)]
        probes = []
        try:
            for candidate in wanted:
                probe = socket.socket()
                probes.append(probe)
                probe.bind(("127.0.0.1", candidate))
            return port
        except OSError:
            continue
        finally:
            for probe in probes:
                probe.close()
    raise RuntimeError("no run of free ports for SeaweedFS")


class Server:
    """`docpreview serve` on the store `folder/store` and a free loopback port, with `extra` arguments."""

    def __init__(self, binary, folder, extra=(), stderr=subprocess.DEVNULL):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen([binary, "serve", "--port", str(self.port), "--store", str(folder / "store"), *extra],
                                        stdout=subprocess.DEVNULL, stderr=stderr)
        for _ in range(200):
            try:
                urllib.request.urlopen(self.base + "/healthz", timeout=1)
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("docpreview serve did not start")

    def upload(self, path):
        """Uploads `path`, waits until its first preview is made; returns the document id."""
        return self.upload_ready(path)[0]

    def upload_ready(self, path, poll=0.002):
        """Uploads `path` as an app does (its bytes, on a kept-alive connection) and asks after it every
        `poll` seconds until its first preview is made (or failed); returns the document id and the
        milliseconds from the upload's first byte to the answer that said so."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            body = Path(path).read_bytes()
            started = time.monotonic()
            connection.request("POST", "/v1/documents?filename=" + urllib.parse.quote(Path(path).name), body=body)
            response = connection.getresponse()
            if response.status != 202:
                raise RuntimeError(f"upload of {path}: {response.status} {response.read()[:200]}")
            document = json.loads(response.read())["document_id"]
            deadline = started + 60
            while time.monotonic() < deadline:
                connection.request("GET", f"/v1/documents/{document}")
                response = connection.getresponse()
                status = json.loads(response.read())["preview_status"]
                if status != "pending":
                    return document, (time.monotonic() - started) * 1000
                time.sleep(poll)
        finally:
            connection.close()
        raise RuntimeError("the upload was not processed")

    def request_ms(self, path):
        """Time of one GET (curl's time_total: connect, request, full response), in ms."""
        output = subprocess.run(["curl", "-sf", "-o", "/dev/null", "-w", "%{time_total}", self.base + path],
                                check=True, capture_output=True, text=True).stdout
        return float(output) * 1000

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


def machine():
    """One line: CPU, cores, memory, OS, date."""
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name")), "?")
    memory = next(int(line.split()[1]) for line in open("/proc/meminfo") if line.startswith("MemTotal")) / 1024 / 1024
    system = next((line.split("=", 1)[1].strip().strip('"') for line in open("/etc/os-release")
                   if line.startswith("PRETTY_NAME")), platform.system())
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"{cpu}, {os.cpu_count()} cores, {memory:.0f} GiB, {system}; {date}"


def versions():
    """Versions of the peer tools, one line."""
    def first_line(command):
        try:
            completed = subprocess.run(command, capture_output=True, text=True)
            return (completed.stdout or completed.stderr).strip().splitlines()[0]
        except (OSError, IndexError):
            return "?"
    return "; ".join([first_line(["vips", "--version"]), first_line(["pdftoppm", "-v"]),
                      first_line(["ffmpeg", "-version"]).split(" Copyright")[0],
                      "ffmpegthumbnailer " + first_line(["ffmpegthumbnailer", "-v"]).split()[-1],
                      first_line(["soffice", "--version"]), first_line(["hyperfine", "--version"])])


def gnuplot(script):
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def package_benchmark_ms(target, name):
    """The median wall clock (ms) of package benchmark `name` in `target` (Benchmarks/), run now."""
    completed = subprocess.run(["swift", "package", "--allow-writing-to-package-directory", "benchmark", "--target", target,
                                "--filter", name, "--no-progress"], cwd=ROOT / "Benchmarks", check=True, capture_output=True, text=True)
    for line in completed.stdout.splitlines():
        if line.startswith("│ Time (wall clock)"):
            cells = [cell.strip() for cell in line.split("│")[1:-1]]
            unit = 1000.0 if "(s)" in cells[0] else 0.001 if "(us)" in cells[0] or "(μs)" in cells[0] else 1.0
            return float(cells[3]) * unit
    raise RuntimeError(f"no wall clock for {name} in:\n{completed.stdout[-2000:]}")


def median(values):
    return statistics.median(values)


def scratch():
    folder = Path(tempfile.mkdtemp(prefix="docpreview-bench-"))
    return folder, lambda: shutil.rmtree(folder, ignore_errors=True)
