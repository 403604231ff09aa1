package io.kollect.export.postgres;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kollect.extract.Op;
import io.kollect.extract.Record;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

/**
 * Writes records into the sink's tables, one statement per record in one JDBC batch (so the same
 * key twice in a batch is applied in order). The caller owns the transaction.
 *
 * <p><b>Latest sequence wins.</b> A record becomes the row of its identity only when its {@code
 * sequence} is greater than the stored one ({@code ON CONFLICT ... DO UPDATE ... WHERE}); the row
 * lock taken by the upsert orders concurrent writers of one key, so any interleaving of writers
 * ends with the newest state. A DELETE is an upsert too: it leaves a tombstone ({@code deleted_at}
 * set, fields emptied) that keeps its sequence, so a late, older UPSERT cannot bring the object
 * back; a newer UPSERT does (a re-created object).
 *
 * <p><b>History.</b> In the {@code DO UPDATE} the stored row's op and content hash are still the
 * old ones, so the upsert records whether this write changed either ({@code last_write_changed});
 * with history on, the statement appends the applied row to {@code changes} only then. A refused
 * state is not applied, so it appends nothing; a re-sent or heartbeat state is applied (a newer
 * sequence) but changes nothing, so it appends nothing either.
 */
final class RecordStatements {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String COLUMNS = "cluster, target, api_group, kind, namespace, name,"
      + " api_version, uid, resource_version, sequence, observed_at, content_hash, profile,"
      + " fields, labels, annotations, deleted_at, written_at, last_write_changed";

  private final String sql;

  RecordStatements(String quotedSchema, boolean history) {
    String upsert = "INSERT INTO " + quotedSchema + ".object_state AS o (" + COLUMNS + ")"
        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb,"
        + " CASE WHEN ? THEN now() END, now(), true)"
        + " ON CONFLICT (cluster, target, api_group, kind, namespace, name) DO UPDATE SET"
        + " api_version = excluded.api_version, uid = excluded.uid,"
        + " resource_version = excluded.resource_version, sequence = excluded.sequence,"
        + " observed_at = excluded.observed_at, content_hash = excluded.content_hash,"
        + " profile = excluded.profile, fields = excluded.fields, labels = excluded.labels,"
        + " annotations = excluded.annotations, deleted_at = excluded.deleted_at,"
        + " written_at = excluded.written_at,"
        // o.* is the stored row here: did this write change the op or the content?
        + " last_write_changed = (o.deleted_at IS NULL) <> (excluded.deleted_at IS NULL)"
        + " OR o.content_hash IS DISTINCT FROM excluded.content_hash"
        + " WHERE o.sequence < excluded.sequence";
    this.sql = !history ? upsert
        : "WITH applied AS (" + upsert + " RETURNING o.*) INSERT INTO " + quotedSchema
            + ".changes (op, cluster, target, api_group, api_version, kind, namespace, name, uid,"
            + " sequence, observed_at, content_hash, fields)"
            + " SELECT CASE WHEN a.deleted_at IS NULL THEN 'UPSERT' ELSE 'DELETE' END, a.cluster,"
            + " a.target, a.api_group, a.api_version, a.kind, a.namespace, a.name, a.uid,"
            + " a.sequence, a.observed_at, a.content_hash, a.fields"
            + " FROM applied a WHERE a.last_write_changed";
  }

  /** Applies every record of {@code records} in order, within the caller's transaction. */
  void write(Connection c, List<Record> records) throws SQLException {
    try (PreparedStatement p = c.prepareStatement(sql)) {
      for (Record r : records) {
        bind(p, r);
        p.addBatch();
      }
      p.executeBatch();
    }
  }

  private static void bind(PreparedStatement p, Record r) throws SQLException {
    if (r.sequence() == null) {
      // the exporter numbers every record it hands to a sink; without one the order is unknown
      throw new SQLException("record " + r.key() + " has no sequence", "22004");
    }
    boolean delete = r.op() == Op.DELETE;
    int i = 1;
    p.setString(i++, nullToEmpty(r.cluster()));
    p.setString(i++, nullToEmpty(r.target()));
    p.setString(i++, r.resource().group());
    p.setString(i++, r.resource().kind());
    p.setString(i++, nullToEmpty(r.namespace()));
    p.setString(i++, r.name());
    p.setString(i++, r.resource().version());
    p.setString(i++, r.uid());
    p.setString(i++, r.resourceVersion());
    p.setLong(i++, r.sequence());
    if (r.observedAt() == null) {
      p.setNull(i++, Types.TIMESTAMP_WITH_TIMEZONE);
    } else {
      p.setObject(i++, OffsetDateTime.ofInstant(r.observedAt(), ZoneOffset.UTC));
    }
    p.setString(i++, delete ? null : r.contentHash());
    p.setString(i++, r.profile());
    p.setString(i++, delete ? "{}" : json(r.fields()));
    p.setString(i++, delete ? "{}" : json(r.labels()));
    p.setString(i++, delete ? "{}" : json(r.annotations()));
    p.setBoolean(i, delete);
  }

  private static String json(Map<String, ?> map) throws SQLException {
    try {
      return JSON.writeValueAsString(map);
    } catch (JsonProcessingException e) {
      throw new SQLException("cannot write the record as JSON: " + e.getOriginalMessage(),
          "22000", e);
    }
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
