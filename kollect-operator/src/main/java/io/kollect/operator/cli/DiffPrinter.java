package io.kollect.operator.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.kollect.extract.ProfileDiff;
import java.io.PrintWriter;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A {@link ProfileDiff} for people: the summary line, the changed fields by count, then each
 * sample's differing values before and after (scrubbed, as they would be delivered). {@code
 * kollect diff} and {@code kollect experiment diff} print the same.
 */
final class DiffPrinter {

  private DiffPrinter() {}

  static void print(ProfileDiff d, PrintWriter out) {
    out.printf("objects %d, added %d, removed %d, changed %d, errors %d, scrub hits %d, "
            + "bytes %d -> %d%n", d.objects(), d.added(), d.removed(), d.changed(), d.errors(),
        d.scrubHits(), d.bytesBaseline(), d.bytesCandidate());
    if (!d.fieldChanges().isEmpty()) {
      out.println("fieldChanges:");
      new TreeMap<>(d.fieldChanges()).forEach((f, n) -> out.printf("  %s: %d%n", f, n));
    }
    if (!d.samples().isEmpty()) {
      out.printf("samples (%d):%n", d.samples().size());
      for (ProfileDiff.ChangedRecord r : d.samples()) {
        out.printf("  %s%n", r.key());
        TreeSet<String> fields = new TreeSet<>(r.before().keySet());
        fields.addAll(r.after().keySet());
        for (String f : fields) {
          out.printf("    %s: %s -> %s%n", f, value(r.before(), f), value(r.after(), f));
        }
      }
    }
    out.println(d.differs() ? "the candidate differs" : "no difference");
    out.flush();
  }

  private static String value(Map<String, JsonNode> values, String field) {
    JsonNode v = values.get(field);
    return v == null ? "(none)" : v.toString();
  }
}
