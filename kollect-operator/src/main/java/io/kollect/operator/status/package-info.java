/**
 * Status and problem reporting common to every Kollect kind: the one writer of status
 * subresources ({@link io.kollect.operator.status.StatusWriter}), writes coalesced per key ({@link
 * io.kollect.operator.status.CoalescedWrites}), the status of profiles, sinks and unreadable
 * objects ({@link io.kollect.operator.status.ResourceStatuses}), and problems said once in the log
 * and as a Warning Event ({@link io.kollect.operator.status.ProblemReports}). A target's status is
 * {@code io.kollect.operator.targets}'s, a cluster's {@code io.kollect.operator.cluster}'s.
 */
package io.kollect.operator.status;
