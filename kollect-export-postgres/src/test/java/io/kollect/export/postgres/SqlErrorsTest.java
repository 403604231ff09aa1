package io.kollect.export.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;

class SqlErrorsTest {

  @Test
  void dataAndConstraintErrorsAreAboutTheRecordAndFoundInsideABatchFailure() {
    BatchUpdateException batch = new BatchUpdateException("Batch entry 0 INSERT ... 'values'",
        "22P05", new int[0]);
    batch.setNextException(new SQLException("unsupported Unicode escape sequence", "22P05"));
    assertThat(SqlErrors.isDataError(batch)).isTrue();
    assertThat(SqlErrors.describe(batch)).isEqualTo(
        "SQLState 22P05: unsupported Unicode escape sequence").doesNotContain("values");
    assertThat(SqlErrors.isDataError(new SQLException("dup", "23505"))).isTrue();
    assertThat(SqlErrors.isDataError(new SQLException("too big", "54000"))).isTrue();
  }

  @Test
  void connectionRollbackResourceAndShutdownErrorsPassByThemselves() {
    for (String state : new String[] {"08006", "40001", "40P01", "53300", "57P01"}) {
      SQLException e = new SQLException("x", state);
      assertThat(SqlErrors.isTransient(e)).as(state).isTrue();
      assertThat(SqlErrors.isDataError(e)).as(state).isFalse();
    }
    // the pool gave up waiting for a connection and says why in its cause
    SQLException pool = new SQLTransientConnectionException("timed out", null,
        new SQLException("password authentication failed", "28P01"));
    assertThat(SqlErrors.sqlState(pool)).isEqualTo("28P01");
    assertThat(SqlErrors.isTransient(pool)).isFalse();
    assertThat(SqlErrors.isOutage(new SQLTransientConnectionException("timed out"))).isTrue();
  }

  @Test
  void configurationErrorsAreNeitherDataNorTransient() {
    for (String state : new String[] {"28P01", "42501", "3D000", "42P01"}) {
      SQLException e = new SQLException("x", state);
      assertThat(SqlErrors.isTransient(e)).as(state).isFalse();
      assertThat(SqlErrors.isDataError(e)).as(state).isFalse();
    }
  }
}
