package io.kollect.export.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The sink's background work on the database, one short transaction per statement: purging
 * tombstones and history rows past their retention in bounded batches (a purge never holds many
 * row locks or a long transaction), and keeping this writer's rows in {@code writers} fresh while
 * finding live writers of the same cluster names with another identity.
 */
final class Maintenance {

  /** Purge statements per table and pass at most, so one pass ends even under a large backlog. */
  private static final int MAX_BATCHES_PER_PASS = 100;
  /** A writer row not refreshed for this many maintenance intervals is not live. */
  private static final int LIVENESS_INTERVALS = 3;
  /** A writer row not refreshed for this long is deleted (its writer stopped without saying). */
  private static final Duration STALE_WRITER = Duration.ofDays(1);

  private final PostgresSinkConfig config;
  private final String schema;
  private final String instance;

  Maintenance(PostgresSinkConfig config, String instance) {
    this.config = config;
    this.schema = config.quotedSchema();
    this.instance = instance;
  }

  /** Rows deleted by one {@link #purge} pass. */
  record Purged(int tombstones, int changes) {}

  /** Deletes expired tombstones and (with history on) expired history rows. */
  Purged purge(Connection c) throws SQLException {
    int tombstones = purgeBatches(c, "DELETE FROM " + schema + ".object_state WHERE ctid IN"
        + " (SELECT ctid FROM " + schema + ".object_state WHERE deleted_at IS NOT NULL"
        + " AND deleted_at < now() - make_interval(secs => ?) LIMIT ? FOR UPDATE SKIP LOCKED)"
        + " AND deleted_at IS NOT NULL", config.tombstoneRetention());
    int changes = 0;
    if (config.history().enabled()) {
      changes = purgeBatches(c, "DELETE FROM " + schema + ".changes WHERE id IN (SELECT id FROM "
          + schema + ".changes WHERE recorded_at < now() - make_interval(secs => ?)"
          + " ORDER BY id LIMIT ?)", config.history().retention());
    }
    return new Purged(tombstones, changes);
  }

  private int purgeBatches(Connection c, String sql, Duration retention) throws SQLException {
    int total = 0;
    try (PreparedStatement p = c.prepareStatement(sql)) {
      for (int i = 0; i < MAX_BATCHES_PER_PASS; i++) {
        p.setDouble(1, retention.toNanos() / 1e9);
        p.setInt(2, config.purgeBatchSize());
        int n = p.executeUpdate();
        c.commit();
        total += n;
        if (n < config.purgeBatchSize()) {
          break;
        }
      }
    } catch (SQLException e) {
      SchemaMigrator.rollbackQuietly(c);
      throw e;
    }
    return total;
  }

  /**
   * Refreshes this instance's row for each cluster name it wrote and returns the live writers of
   * those names with another identity.
   */
  List<WriterConflict> refreshWriters(Connection c, Collection<String> clusters)
      throws SQLException {
    List<WriterConflict> conflicts = new ArrayList<>();
    if (clusters.isEmpty()) {
      return conflicts;
    }
    try {
      try (PreparedStatement p = c.prepareStatement("INSERT INTO " + schema + ".writers"
          + " (cluster, identity, instance) VALUES (?, ?, ?) ON CONFLICT (cluster, identity,"
          + " instance) DO UPDATE SET last_seen = now()")) {
        for (String cluster : clusters) {
          p.setString(1, cluster);
          p.setString(2, config.writerIdentity());
          p.setString(3, instance);
          p.addBatch();
        }
        p.executeBatch();
      }
      try (PreparedStatement p = c.prepareStatement("DELETE FROM " + schema + ".writers WHERE"
          + " last_seen < now() - make_interval(secs => ?)")) {
        p.setDouble(1, STALE_WRITER.toSeconds());
        p.executeUpdate();
      }
      try (PreparedStatement p = c.prepareStatement("SELECT cluster, identity, instance,"
          + " last_seen FROM " + schema + ".writers WHERE cluster = ANY (?) AND identity <> ?"
          + " AND last_seen > now() - make_interval(secs => ?) ORDER BY cluster, instance")) {
        p.setArray(1, c.createArrayOf("text", clusters.toArray()));
        p.setString(2, config.writerIdentity());
        p.setDouble(3, config.maintenanceInterval().multipliedBy(LIVENESS_INTERVALS).toNanos()
            / 1e9);
        try (ResultSet rs = p.executeQuery()) {
          while (rs.next()) {
            conflicts.add(new WriterConflict(rs.getString(1), rs.getString(2), rs.getString(3),
                rs.getTimestamp(4).toInstant()));
          }
        }
      }
      c.commit();
      return conflicts;
    } catch (SQLException e) {
      SchemaMigrator.rollbackQuietly(c);
      throw e;
    }
  }

  /** Removes this instance's rows: it stops writing. */
  void unregister(Connection c) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("DELETE FROM " + schema + ".writers WHERE"
        + " instance = ?")) {
      p.setString(1, instance);
      p.executeUpdate();
      c.commit();
    }
  }
}
