/**
 * The jar's subcommands' shared option parsing. Depends on no other package of ours.
 */
package io.durablecheckout.orchestrator.cli;
