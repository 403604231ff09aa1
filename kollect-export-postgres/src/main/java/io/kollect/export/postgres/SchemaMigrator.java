package io.kollect.export.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Creates and migrates the sink's schema: numbered SQL scripts applied in order, each recorded in
 * the schema's {@code schema_version} table, all in one transaction under an advisory lock so that
 * several sinks starting at once (shards, one operator per cluster) migrate once and the others
 * wait and then find the schema current. A schema at a version newer than this code knows is
 * refused ({@link TooNew}) and left untouched: an older Kollect must not write tables whose
 * meaning changed.
 *
 * <p>Why not a migration library: the sink owns one schema with a handful of scripts, and what it
 * needs beyond running them (refusing a newer schema with both versions named, taking a lock
 * shared with the other writers) is what such a library would have to be configured into.
 */
final class SchemaMigrator {

  /** One script: {@code migrations/V{version}__{description}.sql} beside this class. */
  record Migration(int version, String description) {
    String resource() {
      return "migrations/V" + version + "__" + description + ".sql";
    }
  }

  /** Every migration, in order; the last one's version is what this code writes. */
  static final List<Migration> MIGRATIONS = List.of(new Migration(1, "inventory"));

  /** The first key of the advisory lock the migration takes (the second is the schema's hash). */
  private static final int LOCK_CLASS = 0x6b6f6c6c; // "koll"

  /** The schema is at a version this code does not know. */
  static final class TooNew extends Exception {
    final int found;
    final int known;

    TooNew(String schema, int found, int known) {
      super("schema " + schema + " is at version " + found + ", newer than the version " + known
          + " this Kollect knows: it was migrated by a newer Kollect; upgrade this one (or write"
          + " to another schema)", null, false, false);
      this.found = found;
      this.known = known;
    }
  }

  private SchemaMigrator() {}

  /** The version this code migrates to. */
  static int latestVersion() {
    return MIGRATIONS.get(MIGRATIONS.size() - 1).version();
  }

  /**
   * Brings the schema to {@link #latestVersion()}; returns the version it was at (0: it did not
   * exist). Commits, or rolls back and throws.
   */
  static int migrate(Connection c, String schema) throws SQLException, TooNew {
    String quoted = '"' + schema + '"';
    c.setAutoCommit(false);
    try (Statement s = c.createStatement()) {
      // the schema name is a checked identifier (PostgresSinkConfig), safe to inline
      s.execute("SELECT pg_advisory_xact_lock(" + LOCK_CLASS + ", hashtext('" + schema + "'))");
      if (!exists(c, "SELECT 1 FROM pg_namespace WHERE nspname = ?", schema)) {
        s.execute("CREATE SCHEMA " + quoted);
      }
      // checked first: CREATE TABLE IF NOT EXISTS would need the CREATE privilege even when the
      // table is there, and a role that only writes a schema a DBA migrated may not have it
      if (!exists(c, "SELECT 1 FROM pg_tables WHERE schemaname = ? AND tablename"
          + " = 'schema_version'", schema)) {
        s.execute("CREATE TABLE " + quoted + ".schema_version (version integer PRIMARY KEY,"
            + " description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())");
      }
      int current;
      try (ResultSet rs = s.executeQuery("SELECT coalesce(max(version), 0) FROM " + quoted
          + ".schema_version")) {
        rs.next();
        current = rs.getInt(1);
      }
      if (current > latestVersion()) {
        c.rollback();
        throw new TooNew(schema, current, latestVersion());
      }
      for (Migration m : MIGRATIONS) {
        if (m.version() > current) {
          s.execute(script(m).replace("${schema}", quoted));
          try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + quoted
              + ".schema_version (version, description) VALUES (?, ?)")) {
            insert.setInt(1, m.version());
            insert.setString(2, m.description());
            insert.executeUpdate();
          }
        }
      }
      c.commit();
      return current;
    } catch (SQLException | RuntimeException e) {
      rollbackQuietly(c);
      throw e;
    }
  }

  private static boolean exists(Connection c, String sql, String parameter) throws SQLException {
    try (PreparedStatement p = c.prepareStatement(sql)) {
      p.setString(1, parameter);
      try (ResultSet rs = p.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static String script(Migration m) {
    try (InputStream in = SchemaMigrator.class.getResourceAsStream(m.resource())) {
      if (in == null) {
        throw new IllegalStateException("migration script missing from the jar: " + m.resource());
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      // the connection is broken; the pool discards it
    }
  }
}
