/**
 * The payment provider simulator of the embedded demo, served over HTTP. Only its own wiring names it; it uses
 * the payments service's protocol and signatures (ArchitectureTest).
 */
package io.durablecheckout.activities.simulator;
