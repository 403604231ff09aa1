package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code lastSentAt} is written as {@link Instant#toString()} and read back, whatever order of
 * send times a mapper writes (it formats a repeated one once).
 */
class ExportedEntryJsonTest {

  @Test
  void everyEntryCarriesItsOwnSendTimeWhenTimesRepeatAndAlternate() throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    Instant a = Instant.parse("2026-11-28T22:00:00.123456Z");
    Instant b = Instant.parse("2026-11-28T22:00:01Z");
    List<Instant> times = List.of(a, a, b, a, b, b, Instant.EPOCH);
    List<ExportedEntry> read = new ArrayList<>();
    for (Instant t : times) {
      ExportedEntry e = FileCheckpointLogTest.entry("x", 1).withLastSentAt(t);
      String json = mapper.writeValueAsString(e);
      assertThat(json).contains("\"lastSentAt\":\"" + t + "\"");
      read.add(mapper.readValue(json, ExportedEntry.class));
    }
    assertThat(read).extracting(ExportedEntry::lastSentAt).containsExactlyElementsOf(times);
  }
}
