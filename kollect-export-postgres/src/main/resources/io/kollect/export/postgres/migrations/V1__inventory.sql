-- Version 1 of the schema the postgres sink owns (see docs/sinks.md, "postgres").
-- ${schema} is replaced by the configured schema, quoted.

-- Every record identity the sink has written: live objects and tombstones (deleted_at set).
-- The primary key is the record identity; sequence decides which state wins.
CREATE TABLE ${schema}.object_state (
  cluster          text        NOT NULL,
  target           text        NOT NULL,
  api_group        text        NOT NULL,
  kind             text        NOT NULL,
  namespace        text        NOT NULL,
  name             text        NOT NULL,
  api_version      text        NOT NULL,
  uid              text,
  resource_version text,
  sequence         bigint      NOT NULL,
  observed_at      timestamptz,
  content_hash     text,
  profile          text,
  fields           jsonb       NOT NULL DEFAULT '{}',
  labels           jsonb       NOT NULL DEFAULT '{}',
  annotations      jsonb       NOT NULL DEFAULT '{}',
  deleted_at       timestamptz,
  written_at       timestamptz NOT NULL DEFAULT now(),
  -- whether the last applied write changed the op or content_hash (the history appends only then)
  last_write_changed boolean   NOT NULL DEFAULT true,
  PRIMARY KEY (cluster, target, api_group, kind, namespace, name)
);
CREATE INDEX object_state_kind_namespace ON ${schema}.object_state (kind, namespace)
  WHERE deleted_at IS NULL;
CREATE INDEX object_state_namespace ON ${schema}.object_state (namespace)
  WHERE deleted_at IS NULL;
CREATE INDEX object_state_cluster_kind ON ${schema}.object_state (cluster, kind)
  WHERE deleted_at IS NULL;
-- jsonb_path_ops: containment (fields @> '{"images": ["nginx:1.25"]}') is the question asked;
-- unlike jsonb_ops it indexes key and value together, so a key every row has stays selective
CREATE INDEX object_state_fields ON ${schema}.object_state USING gin (fields jsonb_path_ops);
CREATE INDEX object_state_labels ON ${schema}.object_state USING gin (labels jsonb_path_ops);
CREATE INDEX object_state_tombstones ON ${schema}.object_state (deleted_at)
  WHERE deleted_at IS NOT NULL;

-- The public contract: the current objects, one row per record identity.
CREATE VIEW ${schema}.objects AS
  SELECT cluster, target, api_group, api_version, kind, namespace, name, uid, resource_version,
         sequence, observed_at, content_hash, profile, fields, labels, annotations
    FROM ${schema}.object_state
   WHERE deleted_at IS NULL;

-- The history: one row per applied change of op or content (empty while history is off).
CREATE TABLE ${schema}.changes (
  id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  recorded_at  timestamptz NOT NULL DEFAULT now(),
  op           text        NOT NULL,
  cluster      text        NOT NULL,
  target       text        NOT NULL,
  api_group    text        NOT NULL,
  api_version  text        NOT NULL,
  kind         text        NOT NULL,
  namespace    text        NOT NULL,
  name         text        NOT NULL,
  uid          text,
  sequence     bigint      NOT NULL,
  observed_at  timestamptz,
  content_hash text,
  fields       jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX changes_recorded_at ON ${schema}.changes (recorded_at);
CREATE INDEX changes_namespace_observed ON ${schema}.changes (namespace, observed_at);
CREATE INDEX changes_object ON ${schema}.changes (cluster, kind, namespace, name, sequence);

-- Who writes which cluster name: one row per sink instance, refreshed while it runs.
CREATE TABLE ${schema}.writers (
  cluster    text        NOT NULL,
  identity   text        NOT NULL,
  instance   text        NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  last_seen  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (cluster, identity, instance)
);
