package io.kollect.export;

import io.kollect.extract.Record;
import java.util.List;

/** Read access to the current records held by an in-memory inventory sink. */
public interface InventoryView {

  /** Current UPSERT records matching the query, ordered by target then record key. */
  List<Record> query(InventoryQuery query);
}
