package io.kollect.operator.status;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.kollect.core.KollectEngine;
import io.kollect.operator.metrics.OperatorMetrics;
import java.time.Clock;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * What every feed of a Kollect kind into the engine shares: where it reads and puts, how it
 * reports (status, problems, metrics), whether it may write (the leader), which namespaces it
 * handles, and its watches' resync.
 *
 * @param client the operator's API client
 * @param engine the hosted engine
 * @param status the one writer of status subresources
 * @param problems problems said once in the log and as Events
 * @param metrics the operator's meters
 * @param leader whether this instance leads (only the leader writes status)
 * @param namespaceFilter whether objects of a namespace are handled at all
 * @param resyncMillis the watches' resync period in milliseconds (0: none)
 * @param clock the time of conditions
 */
public record FeedContext(KubernetesClient client, KollectEngine engine, StatusWriter status,
    ProblemReports problems, OperatorMetrics metrics, BooleanSupplier leader,
    Predicate<String> namespaceFilter, long resyncMillis, Clock clock) {}
