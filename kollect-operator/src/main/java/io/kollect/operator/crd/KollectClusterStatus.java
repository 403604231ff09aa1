package io.kollect.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * {@code KollectCluster.status}, written by the leader. Never carries a credential.
 *
 * @param observedGeneration the generation the conditions describe
 * @param conditions {@code Ready} (reasons {@code Connected}, {@code Unreachable}, {@code
 *     Unauthorized}, {@code InvalidKubeConfig}, {@code Forbidden}, {@code ClusterNameConflict})
 * @param serverVersion the API server's version, once read
 * @param watchedTypes the resource types with an open informer on the cluster
 * @param lastConnectedTime when a request to the cluster last succeeded (RFC 3339)
 * @param clusterName the {@code cluster} value of its records (the spec's, or metadata.name)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record KollectClusterStatus(
    Long observedGeneration,
    List<Condition> conditions,
    @JsonPropertyDescription("The API server's version.") String serverVersion,
    @JsonPropertyDescription("Resource types (apiVersion/Kind) with an open informer.")
        List<String> watchedTypes,
    @JsonPropertyDescription("When a request to the cluster last succeeded.")
        String lastConnectedTime,
    @JsonPropertyDescription("The cluster value of its records.") String clusterName) {}
