package io.kollect.export.postgres;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.postgresql.Driver;

/**
 * Opens connections with the credentials and TLS material the sink read last, so that the pool
 * (which asks this source for every new connection) follows a rotation without being rebuilt.
 */
final class ConnectionSource implements DataSource {

  private final Driver driver = new Driver();
  private final PostgresSinkConfig config;
  private final CredentialsSource credentials;
  private final String applicationName;

  /** The credentials to log in with now; fails with an SQLState when they cannot be read. */
  interface CredentialsSource {
    Credentials get() throws SQLException;
  }

  ConnectionSource(PostgresSinkConfig config, CredentialsSource credentials,
      String applicationName) {
    this.config = config;
    this.credentials = credentials;
    this.applicationName = applicationName;
  }

  @Override
  public Connection getConnection() throws SQLException {
    Credentials c = credentials.get();
    Properties p = new Properties();
    p.setProperty("user", c.username());
    p.setProperty("password", c.password());
    p.setProperty("ApplicationName", applicationName);
    p.setProperty("connectTimeout", String.valueOf(Math.max(1,
        config.connectTimeout().toSeconds())));
    // a server that stops answering mid-statement fails the write instead of hanging it
    p.setProperty("tcpKeepAlive", "true");
    if (config.tls() != null) {
      p.setProperty("ssl", "true");
      p.setProperty("sslmode", "verify-full");
      p.setProperty("sslfactory", PemSslFactory.class.getName());
      if (c.caPem() != null) {
        p.setProperty(PemSslFactory.CA, c.caPem());
      }
      if (c.clientCertPem() != null) {
        p.setProperty(PemSslFactory.CLIENT_CERT, c.clientCertPem());
        p.setProperty(PemSslFactory.CLIENT_KEY, c.clientKeyPem());
      }
    }
    Connection connection = driver.connect(config.url(), p);
    if (connection == null) {
      throw new SQLException("not a PostgreSQL JDBC URL: " + config.url(), "08001");
    }
    return connection;
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException("credentials come from the sink's suppliers");
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {}

  @Override
  public void setLoginTimeout(int seconds) {}

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    if (iface.isInstance(this)) {
      return iface.cast(this);
    }
    throw new SQLException("not a wrapper of " + iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) {
    return iface.isInstance(this);
  }
}
