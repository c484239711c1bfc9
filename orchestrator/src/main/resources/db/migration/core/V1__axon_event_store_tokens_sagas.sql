-- Axon Framework 4.13 JDBC schema for PostgreSQL, as PostgresEventTableFactory, PostgresTokenTableFactory and
-- PostgresSagaSqlSchema would create it (bytea payloads, BIGSERIAL global index), owned by Flyway instead.
-- Unquoted identifiers: Axon's default names (DomainEventEntry, …) fold to lower case in PostgreSQL.

CREATE TABLE domainevententry (
    globalindex        BIGSERIAL    NOT NULL,
    aggregateidentifier VARCHAR(255) NOT NULL,
    sequencenumber     BIGINT       NOT NULL,
    type               VARCHAR(255),
    eventidentifier    VARCHAR(255) NOT NULL,
    metadata           BYTEA,
    payload            BYTEA        NOT NULL,
    payloadrevision    VARCHAR(255),
    payloadtype        VARCHAR(255) NOT NULL,
    timestamp          VARCHAR(255) NOT NULL,
    PRIMARY KEY (globalindex),
    UNIQUE (aggregateidentifier, sequencenumber),
    UNIQUE (eventidentifier)
);

CREATE TABLE snapshotevententry (
    aggregateidentifier VARCHAR(255) NOT NULL,
    sequencenumber     BIGINT       NOT NULL,
    type               VARCHAR(255) NOT NULL,
    eventidentifier    VARCHAR(255) NOT NULL,
    metadata           BYTEA,
    payload            BYTEA        NOT NULL,
    payloadrevision    VARCHAR(255),
    payloadtype        VARCHAR(255) NOT NULL,
    timestamp          VARCHAR(255) NOT NULL,
    PRIMARY KEY (aggregateidentifier, sequencenumber),
    UNIQUE (eventidentifier)
);

CREATE TABLE tokenentry (
    processorname VARCHAR(255) NOT NULL,
    segment       INTEGER      NOT NULL,
    token         BYTEA        NULL,
    tokentype     VARCHAR(255) NULL,
    timestamp     VARCHAR(255) NULL,
    owner         VARCHAR(255) NULL,
    PRIMARY KEY (processorname, segment)
);

CREATE TABLE sagaentry (
    sagaid         VARCHAR(255) NOT NULL,
    revision       VARCHAR(255),
    sagatype       VARCHAR(255),
    serializedsaga BYTEA,
    PRIMARY KEY (sagaid)
);

CREATE TABLE associationvalueentry (
    id               BIGSERIAL    NOT NULL,
    associationkey   VARCHAR(255),
    associationvalue VARCHAR(255),
    sagaid           VARCHAR(255),
    sagatype         VARCHAR(255),
    PRIMARY KEY (id)
);
-- The lookups the saga manager runs for every event (PostgresSagaSqlSchema creates the same two).
CREATE INDEX associationvalueentry_value_type_idx ON associationvalueentry (associationvalue, sagatype);
CREATE INDEX associationvalueentry_id_type_idx ON associationvalueentry (sagaid, sagatype);
