/**
 * The {@code vcorfu} command line: starting a server node, and the log and map commands that
 * operate a cluster from a shell.
 */
package io.vcorfu.server.cli;
