package io.kollect.extract;

/** What a record asks a sink to do with the object it names. */
public enum Op {
  /** The object exists with the record's content; insert or replace it. */
  UPSERT,
  /** The object no longer exists in the target's scope; forget it. */
  DELETE
}
