"""The suite's CPU record (bench/suite_cpu.py): the machine's busy time from /proc/stat, and the per-file sums."""

import os

from bench.suite_cpu import CostPerTest, by_file, machine_busy_seconds, read_costs


def test_busy_time_leaves_out_idle_and_iowait_only():
    # user nice system idle iowait irq softirq steal guest guest_nice
    line = "cpu  100 20 30 5000 400 6 4 40 999 999"
    assert machine_busy_seconds(line) == (100 + 20 + 30 + 6 + 4 + 40) / os.sysconf("SC_CLK_TCK")


def test_files_are_summed_and_listed_costliest_first():
    costs = read_costs(["tests/a.py::t1\t2.50\t3.00\n", "tests/b.py::t\t4.00\t1.00\n", "\n",
                        "tests/a.py::t2[x]\t1.00\t0.50\n"])
    assert costs[2] == CostPerTest("tests/a.py::t2[x]", 1.0, 0.5) and costs[2].file == "tests/a.py"
    assert by_file(costs) == [("tests/b.py", 1, 4.0, 1.0), ("tests/a.py", 2, 3.5, 3.5)]
