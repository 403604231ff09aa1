package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Map;

/**
 * {@code KollectTarget.status}, written by the leader.
 *
 * <p><b>Sharded</b> ({@code --total-shards N}, N &gt; 1), the status has N + 1 writers: each
 * shard's leader server-side applies its own {@code shards[]} entry (field manager {@code
 * kollect-shard-<i>}; the CRD makes {@code shards} a map list keyed by {@code index}, so entries
 * merge), and shard 0's leader alone writes everything else, summing {@code objects} and {@code
 * objectCounts} over the entries, merging their {@code clusters} and {@code skipped}, and making
 * {@code Ready} True only when every shard is.
 * Unsharded, {@code shards} is absent.
 *
 * @param observedGeneration the spec generation this status describes
 * @param conditions {@code Ready}, {@code Degraded}, and as kstatus has them {@code Reconciling}
 *     and {@code Stalled} (only while True), plus {@code RecordsRejected}
 * @param objectCounts exported objects per resource type ({@code apiVersion/Kind}); sharded, the sum
 *     over {@code shards[]}
 * @param skipped parts of the scope that cannot be read; sharded, the union over {@code shards[]}
 * @param lastExportTime when records were last handed to the sinks (RFC 3339); sharded, the
 *     latest of the shards'
 * @param objects exported objects in total (the printer column); sharded, the sum over {@code
 *     shards[]}
 * @param inventory how writing the KollectInventory objects goes, when the target writes them
 * @param sinks per sink: the last acknowledged delivery, pending records and failures
 * @param clusters per cluster the target reads (when it names clusters): ready, objects, why not;
 *     sharded, merged by name over {@code shards[]} (ready when every shard's part is, objects
 *     summed)
 * @param lastHandledReconcileAt the last forced reconcile request handled
 * @param shards sharded only: each shard's own part, written by that shard
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KollectTargetStatus(
    Long observedGeneration,
    List<Condition> conditions,
    @JsonPropertyDescription("Exported objects per resource type (apiVersion/Kind); sharded, the "
        + "sum over shards[].")
        Map<String, Integer> objectCounts,
    List<SkippedEntry> skipped,
    String lastExportTime,
    @JsonPropertyDescription("Exported objects in total; sharded, the sum over shards[].")
        Integer objects,
    @JsonPropertyDescription("How writing the KollectInventory objects goes.")
        InventoryStatus inventory,
    @JsonPropertyDescription("Per sink: the last acknowledged delivery, pending records, failures.")
        List<SinkStatus> sinks,
    @JsonPropertyDescription("Per cluster the target reads: whether it is ready, its objects, "
        + "and why not.")
        List<ClusterEntry> clusters,
    @JsonPropertyDescription("The last value of the kollect.io/reconcile-requested-at annotation "
        + "that forced a full pass.")
        String lastHandledReconcileAt,
    @JsonPropertyDescription("Sharded operators only (--total-shards > 1): each shard's own part, "
        + "written by that shard's leader with server-side apply (field manager "
        + "kollect-shard-<index>). The other fields are the aggregating shard's: objects and "
        + "objectCounts sum these entries, clusters[] and skipped[] merge them, Ready is True "
        + "only when every shard's entry is Ready at the current generation.")
        List<ShardEntry> shards) {

  /** The status without per-shard entries (unsharded). */
  public KollectTargetStatus(Long observedGeneration, List<Condition> conditions,
      Map<String, Integer> objectCounts, List<SkippedEntry> skipped, String lastExportTime,
      Integer objects, InventoryStatus inventory, List<SinkStatus> sinks,
      List<ClusterEntry> clusters, String lastHandledReconcileAt) {
    this(observedGeneration, conditions, objectCounts, skipped, lastExportTime, objects, inventory,
        sinks, clusters, lastHandledReconcileAt, null);
  }

  /** The status without a forced reconcile handled. */
  public KollectTargetStatus(Long observedGeneration, List<Condition> conditions,
      Map<String, Integer> objectCounts, List<SkippedEntry> skipped, String lastExportTime,
      Integer objects, InventoryStatus inventory, List<SinkStatus> sinks,
      List<ClusterEntry> clusters) {
    this(observedGeneration, conditions, objectCounts, skipped, lastExportTime, objects, inventory,
        sinks, clusters, null);
  }

  /** This status echoing {@code value} as the handled reconcile request. */
  public KollectTargetStatus withLastHandledReconcileAt(String value) {
    return new KollectTargetStatus(observedGeneration, conditions, objectCounts, skipped,
        lastExportTime, objects, inventory, sinks, clusters, value, shards);
  }

  /**
   * {@code status.shards[]}: one shard's part of the target, as that shard's leader sees it.
   *
   * @param index the shard ({@code --shard}); the list's key
   * @param ready the shard's {@code Ready}: {@code True}, {@code False} or {@code Unknown}
   * @param reason the CamelCase reason of the shard's {@code Ready}
   * @param message the shard's {@code Ready} message
   * @param objects objects this shard exports
   * @param objectCounts objects this shard exports per resource type ({@code apiVersion/Kind})
   * @param observedGeneration the spec generation the shard's part describes
   * @param lastExportTime when this shard last handed records to the sinks (RFC 3339)
   * @param clusters the clusters this shard reads for the target, with its objects from each
   *     (split by cluster, a remote cluster appears in its owner's entry only)
   * @param skipped the parts of the scope this shard cannot read
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ShardEntry(
      @Required @JsonPropertyDescription("The shard (--shard); the key of the list.")
          Integer index,
      @JsonPropertyDescription("The shard's Ready: True, False or Unknown.") String ready,
      String reason,
      String message,
      @JsonPropertyDescription("Objects this shard exports.") Integer objects,
      Map<String, Integer> objectCounts,
      Long observedGeneration,
      String lastExportTime,
      @JsonPropertyDescription("The clusters this shard reads for the target and its objects "
          + "from each; the top-level clusters[] merges them over the shards.")
          List<ClusterEntry> clusters,
      @JsonPropertyDescription("The parts of the scope this shard cannot read; the top-level "
          + "skipped[] is their union.")
          List<SkippedEntry> skipped) {

    /** An entry without clusters or skipped scopes. */
    public ShardEntry(Integer index, String ready, String reason, String message, Integer objects,
        Map<String, Integer> objectCounts, Long observedGeneration, String lastExportTime) {
      this(index, ready, reason, message, objects, objectCounts, observedGeneration,
          lastExportTime, null, null);
    }
  }

  /**
   * {@code status.clusters[]}.
   *
   * @param name the cluster's name (the {@code cluster} value in records)
   * @param ready whether this cluster's part of the target is ready
   * @param objects objects exported from this cluster
   * @param message why it is not ready (never a credential)
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record ClusterEntry(String name, Boolean ready, Integer objects, String message) {}

  /** The status of a target that reads one cluster. */
  public KollectTargetStatus(Long observedGeneration, List<Condition> conditions,
      Map<String, Integer> objectCounts, List<SkippedEntry> skipped, String lastExportTime,
      Integer objects, InventoryStatus inventory, List<SinkStatus> sinks) {
    this(observedGeneration, conditions, objectCounts, skipped, lastExportTime, objects, inventory,
        sinks, null);
  }

  /** The status without totals, inventory block or per-sink deliveries. */
  public KollectTargetStatus(Long observedGeneration, List<Condition> conditions,
      Map<String, Integer> objectCounts, List<SkippedEntry> skipped, String lastExportTime) {
    this(observedGeneration, conditions, objectCounts, skipped, lastExportTime, null, null, null,
        null);
  }

  /**
   * {@code status.sinks[]}: how deliveries of this target to one sink go. {@code lastExportTime}
   * says when records were handed to the exporter; {@code lastAcknowledgedTime} when the sink took
   * them, so a sink that is behind shows.
   *
   * @param name the KollectSink's name ({@code stdout} for {@code --stdout})
   * @param lastAcknowledgedTime when the sink last acknowledged a delivery (RFC 3339)
   * @param pending records waiting for the sink
   * @param consecutiveFailures failed attempts since the last success
   * @param failingSince first failed attempt since the last success (RFC 3339)
   * @param lastError the last failure
   * @param rejected records the sink can never take (e.g. too large), with the reason
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record SinkStatus(
      String name,
      String lastAcknowledgedTime,
      Integer pending,
      Integer consecutiveFailures,
      String failingSince,
      String lastError,
      List<SinkRejection> rejected) {}

  /**
   * A record a sink rejected for good.
   *
   * @param key the record key
   * @param reason why
   */
  public record SinkRejection(String key, String reason) {}

  /**
   * {@code status.inventory}.
   *
   * @param records records in the inventory objects
   * @param pending records changed since the last successful write
   * @param consecutiveFailures failed write attempts since the last success
   * @param lastWriteTime when the objects last matched the records (RFC 3339)
   * @param lastError the last failed attempt's error
   * @param rejected records left out because they cannot fit in an object
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record InventoryStatus(
      Integer records,
      Integer pending,
      Integer consecutiveFailures,
      String lastWriteTime,
      String lastError,
      List<RejectedRecord> rejected) {}

  /**
   * A record left out of the inventory.
   *
   * @param object {@code Kind namespace/name}
   * @param bytes size of its record JSON
   * @param reason why it does not fit
   */
  public record RejectedRecord(String object, Long bytes, String reason) {}
}
