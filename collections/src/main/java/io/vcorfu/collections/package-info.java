/** Replicated collections built on the object runtime (SMR and composable CSMR collections). */
package io.vcorfu.collections;
