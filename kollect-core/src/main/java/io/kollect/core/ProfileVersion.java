package io.kollect.core;

import io.kollect.extract.CompiledProfile;
import io.kollect.extract.ProfileSpec;

/**
 * The engine's view of one profile: the spec it was given last, and the last spec that compiled.
 * When the latest spec is invalid, {@code compiled} still holds the previous valid one so targets
 * keep exporting with it, and {@code error} says what is wrong with the latest.
 *
 * @param spec the latest spec given
 * @param compiled the last valid compiled version, or {@code null} if there never was one
 * @param error the validation message of the latest spec, or {@code null} when it is valid
 */
record ProfileVersion(ProfileSpec spec, CompiledProfile compiled, String error) {}
