package io.kollect.informers;

import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Hands out one shared instance per distinct (equal) immutable value, without keeping a value
 * alive once nothing else refers to it. For values that repeat across cached objects.
 */
final class WeakInterner<T> {

  private final Map<T, WeakReference<T>> instances = new WeakHashMap<>();

  /** The shared instance equal to {@code value} ({@code value} itself the first time). */
  synchronized T intern(T value) {
    WeakReference<T> ref = instances.get(value);
    T shared = ref == null ? null : ref.get();
    if (shared == null) {
      instances.put(value, new WeakReference<>(value));
      shared = value;
    }
    return shared;
  }
}
