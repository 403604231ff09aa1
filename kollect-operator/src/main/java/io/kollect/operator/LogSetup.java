package io.kollect.operator;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.encoder.Encoder;
import java.io.FilterOutputStream;
import java.io.PrintStream;
import net.logstash.logback.encoder.LogstashEncoder;
import org.slf4j.LoggerFactory;

/**
 * Configures logback from the command line: one appender on the command's error stream
 * (<em>stderr</em>; stdout is reserved for records), as JSON (logstash layout, for log collectors)
 * or as text.
 */
public final class LogSetup {

  /** Log line formats. */
  public enum Format {
    json,
    text
  }

  private LogSetup() {}

  /**
   * Loggers that would print HTTP request and response bodies or headers (the bearer token), kept
   * off at every level. fabric8's {@code HttpLoggingInterceptor} logs whole requests and responses
   * when its logger is at trace; {@link KubeClients} also replaces the interceptor itself.
   */
  static final java.util.List<String> SENSITIVE_LOGGERS = java.util.List.of(
      "io.fabric8.kubernetes.client.http.HttpLoggingInterceptor",
      "io.netty.handler.logging.LoggingHandler",
      // Vert.x 5 (fabric8 8.x's HTTP client) names of the connection classes
      "io.vertx.core.http.impl.http1.Http1ClientConnection",
      "io.vertx.core.net.impl.ConnectionBase",
      "io.vertx.core.net.impl.VertxConnection");

  /** Turns the {@link #SENSITIVE_LOGGERS} off; also for embedders that configure logback. */
  static void capSensitiveLoggers(LoggerContext ctx) {
    for (String name : SENSITIVE_LOGGERS) {
      ctx.getLogger(name).setLevel(Level.OFF);
    }
  }

  /** JSON when running in a pod (the API server's service host is set), text otherwise. */
  public static Format defaultFormat() {
    return System.getenv("KUBERNETES_SERVICE_HOST") != null ? Format.json : Format.text;
  }

  /**
   * Replaces the logging configuration.
   *
   * @param level root level for Kollect ({@code io.kollect}); libraries log at {@code warn} unless
   *     the level is {@code debug} or {@code trace}
   * @param format line format
   * @param stream where log lines go (standard error unless embedded)
   */
  public static void configure(Level level, Format format, PrintStream stream) {
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
      return; // another slf4j binding is in charge (an embedding application); leave it alone
    }
    ctx.reset();
    Encoder<ILoggingEvent> encoder;
    if (format == Format.json) {
      LogstashEncoder json = new LogstashEncoder();
      json.setContext(ctx);
      json.start();
      encoder = json;
    } else {
      PatternLayoutEncoder text = new PatternLayoutEncoder();
      text.setContext(ctx);
      text.setPattern("%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n");
      text.start();
      encoder = text;
    }
    OutputStreamAppender<ILoggingEvent> stderr = new OutputStreamAppender<>();
    stderr.setContext(ctx);
    stderr.setName("stderr");
    stderr.setEncoder(encoder);
    stderr.setImmediateFlush(true);
    // The appender closes its stream on reset; the stream belongs to the caller.
    stderr.setOutputStream(new FilterOutputStream(stream) {
      @Override
      public void write(byte[] b, int off, int len) {
        stream.write(b, off, len);
      }

      @Override
      public void close() {
        stream.flush();
      }
    });
    stderr.start();
    Logger root = ctx.getLogger(Logger.ROOT_LOGGER_NAME);
    root.addAppender(stderr);
    boolean verbose = level.toInt() <= Level.DEBUG.toInt();
    // Libraries get at most debug, even at --log-level=trace: their trace output carries raw API
    // objects (Secret bodies, unscrubbed env values). Only Kollect's own loggers go to trace.
    root.setLevel(verbose ? Level.DEBUG : Level.WARN);
    ctx.getLogger("io.kollect").setLevel(level);
    capSensitiveLoggers(ctx);
    // It warns once per CRD that v1alpha1 is "unstable": true, known, and noise to operators.
    ctx.getLogger("io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils").setLevel(Level.ERROR);
  }
}
