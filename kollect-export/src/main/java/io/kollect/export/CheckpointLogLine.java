package io.kollect.export;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * One line of a file checkpoint's log, built in one array: the CRC-32C of the JSON as eight hex
 * digits, a space, the JSON, a newline ({@link FileCheckpointStore}'s class comment has the
 * format).
 *
 * <p>Why not the JSON's bytes and then the line: the JSON is written into this buffer after room
 * left for the checksum, which is filled in at the end. A first inventory's passes log tens of
 * thousands of entries a line, and building the JSON, its array and then the line copied each
 * line three times (docs/benchmarks.md).
 */
final class CheckpointLogLine extends ByteArrayOutputStream {

  private static final int PREFIX = 9; // eight hex digits and a space
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

  private boolean finished;

  /** @param jsonBytes room to reserve for the JSON */
  CheckpointLogLine(int jsonBytes) {
    super(PREFIX + Math.max(jsonBytes, 0) + 1);
    count = PREFIX;
  }

  /** How many bytes of JSON were written so far. */
  int jsonLength() {
    return (finished ? count - 1 : count) - PREFIX;
  }

  /** The whole line, checksum in front and newline after; no JSON may be written after this. */
  ByteBuffer finish() {
    if (!finished) {
      CRC32C crc = new CRC32C();
      crc.update(buf, PREFIX, count - PREFIX);
      long value = crc.getValue();
      for (int i = 7; i >= 0; i--) {
        buf[i] = HEX[(int) (value & 0xf)];
        value >>>= 4;
      }
      buf[8] = ' ';
      write('\n');
      finished = true;
    }
    return ByteBuffer.wrap(buf, 0, count);
  }

  @Override
  public synchronized void write(int b) {
    checkOpen();
    super.write(b);
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) {
    checkOpen();
    super.write(b, off, len);
  }

  private void checkOpen() {
    if (finished) {
      throw new IllegalStateException("the line is finished");
    }
  }
}
