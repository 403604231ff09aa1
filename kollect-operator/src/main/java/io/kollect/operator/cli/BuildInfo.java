package io.kollect.operator.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;

/**
 * What this build of Kollect is: its version, the commit it was built from and when, as the build
 * wrote them into {@code build-info.properties}. A value the build could not fill (no git checkout,
 * a run from an IDE's classes) reads as {@code unknown}, never as an unexpanded placeholder.
 */
record BuildInfo(String version, String commit, boolean dirty, String built) {

  private static final String RESOURCE = "/io/kollect/operator/build-info.properties";
  private static final String UNKNOWN = "unknown";

  static BuildInfo current() {
    Properties p = new Properties();
    try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
    return of(p);
  }

  static BuildInfo of(Properties p) {
    return new BuildInfo(value(p, "version"), value(p, "commit"),
        "true".equals(p.getProperty("dirty")), value(p, "built"));
  }

  private static String value(Properties p, String key) {
    String v = p.getProperty(key, "").trim();
    return v.isEmpty() || v.startsWith("${") ? UNKNOWN : v;
  }

  /** The lines {@code kollect version} prints; the first is {@code kollect <version>}. */
  List<String> lines() {
    return List.of(
        "kollect " + version,
        "commit  " + commit + (dirty ? " (with uncommitted changes)" : ""),
        "built   " + built,
        "java    " + System.getProperty("java.runtime.version") + " ("
            + System.getProperty("java.vendor") + ")");
  }
}
