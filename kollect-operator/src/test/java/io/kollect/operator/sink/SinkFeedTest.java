package io.kollect.operator.sink;

import static org.assertj.core.api.Assertions.assertThat;

import io.kollect.operator.crd.KollectSink;
import io.kollect.operator.crd.KollectSinkSpec;
import io.kollect.operator.status.OfflineFeedContext;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * KollectSinks into the engine, without a cluster ({@link OfflineFeedContext}): the watch is not
 * started, and the feed's handlers are called as the watch would.
 */
class SinkFeedTest {

  private final OfflineFeedContext offline = new OfflineFeedContext();
  private final SinkFeed feed = new SinkFeed(offline.context(),
      new SinkTranslation(offline.client()), List::of);

  @AfterEach
  void close() {
    // The feed's kafka topic checks run on threads of their own: stop them with the test.
    feed.close();
    offline.close();
  }

  @Test
  void aSinkThatCannotBeBuiltIsReportedOnceNamingTheField() {
    KollectSink sink = new KollectSink();
    sink.getMetadata().setNamespace("team");
    sink.getMetadata().setName("hook");
    sink.setSpec(new KollectSinkSpec(null, null, null, null, null));
    feed.onSink(sink);
    feed.onSink(sink);
    assertThat(offline.events()).containsExactly(
        "InvalidSink: KollectSink team/hook: spec.type: is missing (stdout, file, http, kafka, otlp or postgres)");
  }
}
