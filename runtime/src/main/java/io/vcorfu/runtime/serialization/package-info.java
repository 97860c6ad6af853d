/**
 * Pluggable serialization of method arguments: the {@link
 * io.vcorfu.runtime.serialization.Serializer} contract and the allow-list {@link
 * io.vcorfu.runtime.serialization.DefaultSerializer}, which never uses Java native serialization.
 */
package io.vcorfu.runtime.serialization;
