/**
 * The shared log as clients see it, the paper's Table 1: append to one or more streams, read by
 * global or stream address, check tails, trim and fill holes, with the results and failures those
 * calls return.
 */
package io.vcorfu.runtime.stream;
