package io.kollect.informers;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Keeps every event and status a lease reports, for assertions. */
final class RecordingListener implements LeaseListener {

  final List<ResourceEvent> events = new CopyOnWriteArrayList<>();
  final List<LeaseStatus> statuses = new CopyOnWriteArrayList<>();

  @Override
  public void onEvent(ResourceEvent event) {
    events.add(event);
  }

  @Override
  public void onStatusChange(LeaseStatus status) {
    statuses.add(status);
  }

  boolean saw(ResourceEvent.Kind kind, String namespace, String name) {
    return events.stream().anyMatch(e -> e.kind() == kind
        && java.util.Objects.equals(e.namespace(), namespace) && e.name().equals(name));
  }

  long count(ResourceEvent.Kind kind, String namespace, String name) {
    return events.stream().filter(e -> e.kind() == kind
        && java.util.Objects.equals(e.namespace(), namespace) && e.name().equals(name)).count();
  }

  LeaseStatus lastStatus() {
    return statuses.isEmpty() ? null : statuses.get(statuses.size() - 1);
  }
}
