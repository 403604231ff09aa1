package io.kollect.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HeapInfoTest {

  @Test
  void serialGcUsedHeapIsNewPlusTenuredWithoutMetaspace() {
    String out = """
        12345:
         def new generation   total 9792K, used 1024K [0x00000000e9a00000, 0x00000000ea4a0000, 0x00000000f1150000)
          eden space 8704K,  11% used [0x00000000e9a00000, 0x00000000e9b00000, 0x00000000ea280000)
         tenured generation   total 21888K, used 20000K [0x00000000f1150000, 0x00000000f26b0000, 0x0000000100000000)
         Metaspace       used 30000K, committed 30500K, reserved 1114112K
        """;
    assertThat(HeapInfo.usedBytes(out)).isEqualTo((1024L + 20000L) * 1024);
  }

  @Test
  void g1UsedHeapIsTheGarbageFirstHeapLine() {
    String out = " garbage-first heap   total 262144K, used 51200K [0x0000000700000000, 0x0000000800000000)\n"
        + "  region size 1024K, 3 young (3072K), 0 survivors (0K)\n";
    assertThat(HeapInfo.usedBytes(out)).isEqualTo(51200L * 1024);
  }

  @Test
  void outputWithoutAHeapIsUnknown() {
    assertThat(HeapInfo.usedBytes("com.sun.tools.attach.AttachNotSupportedException: no such process")).isEqualTo(-1);
  }
}
