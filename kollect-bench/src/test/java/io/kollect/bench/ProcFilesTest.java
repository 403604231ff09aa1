package io.kollect.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProcFilesTest {

  @Test
  void statusGivesResidentAndPeakResidentBytes() {
    String status = "Name:\tjava\nVmPeak:\t 3000000 kB\nVmHWM:\t  524288 kB\nVmRSS:\t  262144 kB\nThreads:\t42\n";
    ProcFiles.Memory m = ProcFiles.parseStatus(status);
    assertThat(m.rssBytes()).isEqualTo(256L << 20);
    assertThat(m.peakRssBytes()).isEqualTo(512L << 20);
  }

  @Test
  void cpuTicksAreUtimePlusStimeEvenWhenTheCommandNameHasSpacesAndParentheses() {
    // fields: pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
    String stat = "1234 (my (odd) java) S 1 1234 1234 0 -1 4194560 100 0 0 0 1500 250 0 0 20 0 30 0";
    assertThat(ProcFiles.parseCpuTicks(stat)).isEqualTo(1750);
  }

  @Test
  void storageWritesAreWriteBytesNotWchar() {
    String io = "rchar: 100\nwchar: 5000\nsyscr: 1\nsyscw: 2\nread_bytes: 0\nwrite_bytes: 4096\ncancelled_write_bytes: 0\n";
    assertThat(ProcFiles.field(io, "write_bytes:")).isEqualTo(4096);
  }

  @Test
  void cpuTicksOfThisProcessCanBeRead() throws Exception {
    assertThat(ProcFiles.cpuTicks(ProcessHandle.current().pid())).isPositive();
    assertThat(ProcFiles.memory(ProcessHandle.current().pid()).peakRssBytes()).isPositive();
  }
}
