/**
 * What the release ships, checked without building it: the BOM names every library, and the
 * operator image's configuration agrees with the manifests in {@code deploy/}.
 */
package io.kollect.release;
