-- Axon 4.13's sequenced dead-letter queue (JdbcSequencedDeadLetterQueue, default DeadLetterSchema), as
-- GenericDeadLetterTableFactory would create it but with PostgreSQL types (bytea for serialized data; Axon writes
-- timestamps as ISO-8601 strings). One table for every processing group that parks poison events: the activity
-- processors (inventory, payments, receipts) and the read model (checkout-summary). The sequence identifier is
-- the checkout id, so one bad event parks that checkout's later events of the same processor and nothing else.
CREATE TABLE deadletterentry (
    deadletteridentifier VARCHAR(255) NOT NULL,
    processinggroup      VARCHAR(255) NOT NULL,
    sequenceidentifier   VARCHAR(255) NOT NULL,
    sequenceindex        BIGINT       NOT NULL,
    messagetype          VARCHAR(255) NOT NULL,
    eventidentifier      VARCHAR(255) NOT NULL,
    timestamp            VARCHAR(255) NOT NULL,
    payloadtype          VARCHAR(255) NOT NULL,
    payloadrevision      VARCHAR(255),
    payload              BYTEA        NOT NULL,
    metadata             BYTEA,
    type                 VARCHAR(255),
    aggregateidentifier  VARCHAR(255),
    sequencenumber       BIGINT,
    tokentype            VARCHAR(255),
    token                BYTEA,
    enqueuedat           VARCHAR(255) NOT NULL,
    lasttouched          VARCHAR(255),
    processingstarted    VARCHAR(255),
    causetype            VARCHAR(255),
    causemessage         VARCHAR(1023),
    diagnostics          BYTEA,
    CONSTRAINT pk_deadletterentry PRIMARY KEY (deadletteridentifier),
    CONSTRAINT uq_deadletterentry_sequence_index UNIQUE (processinggroup, sequenceidentifier, sequenceindex)
);

CREATE INDEX ix_deadletterentry_processing_group ON deadletterentry (processinggroup);
CREATE INDEX ix_deadletterentry_sequence ON deadletterentry (processinggroup, sequenceidentifier);
