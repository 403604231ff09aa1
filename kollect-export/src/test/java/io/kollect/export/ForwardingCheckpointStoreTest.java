package io.kollect.export;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A wrapper built on {@link ForwardingCheckpointStore} changes only what it overrides: every
 * method of {@link CheckpointStore}, the defaulted ones too, reaches the wrapped store as called.
 */
class ForwardingCheckpointStoreTest {

  @Test
  void everyMethodOfTheInterfaceIsForwardedExplicitlyNotLeftToItsDefault() {
    for (Method m : CheckpointStore.class.getMethods()) {
      if (Modifier.isStatic(m.getModifiers())) {
        continue;
      }
      assertThatCode(() -> ForwardingCheckpointStore.class.getDeclaredMethod(m.getName(),
          m.getParameterTypes())).as(m.toString()).doesNotThrowAnyException();
    }
  }

  @Test
  void theStateOfferedWithAChangeReachesTheWrappedStore() {
    List<Map<String, ExportedEntry>> offered = new ArrayList<>();
    CheckpointStore wrapped = new ForwardingCheckpointStore(CheckpointStore.none()) {
      @Override
      public void apply(String target, String sink, Map<String, ExportedEntry> changed,
          Set<String> removed, Supplier<Map<String, ExportedEntry>> state) {
        offered.add(state.get());
      }
    };
    ExportedEntry e = FileCheckpointLogTest.entry("a", 1);
    Map<String, ExportedEntry> state = Map.of(e.key(), e);

    new ForwardingCheckpointStore(wrapped) {}.apply("t", "s", state, Set.of(), () -> state);

    assertThat(offered).containsExactly(state);
  }
}
