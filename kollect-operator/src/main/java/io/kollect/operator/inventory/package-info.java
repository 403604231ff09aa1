/**
 * KollectInventory objects: the engine's inventory sink that keeps each target's records in
 * objects in the target's namespace ({@link io.kollect.operator.inventory.InventoryObjectSink},
 * {@link io.kollect.operator.inventory.TargetInventory}), their health for status and metrics, and
 * the sweep that deletes the objects of targets that no longer want them ({@link
 * io.kollect.operator.inventory.InventorySweep}).
 */
package io.kollect.operator.inventory;
