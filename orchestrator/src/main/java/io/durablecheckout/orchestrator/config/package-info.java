/**
 * The wiring: Axon's stores, serializers, processors and deadline manager, the data source and the embedded
 * PostgreSQL, start-up checks, and the runtime pieces they install ({@code WakeUpEventSource}, {@code LeaseDeadlineManager},
 * {@code PromptRetryTask}). May depend on any feature package; only the entry points depend on it.
 */
package io.durablecheckout.orchestrator.config;
