/**
 * The published language shared by the orchestrator and the activity services. Depends on no Spring and no
 * JDBC (ArchitectureTest).
 */
package io.durablecheckout.api;
