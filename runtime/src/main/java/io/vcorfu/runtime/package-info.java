/**
 * The vcorfu object runtime: replicated Java objects on a shared log.
 *
 * <p>Start with {@link io.vcorfu.runtime.VCorfuRuntime#using}, open objects with {@code
 * rt.objects().open(name, Type.class)} (or {@code rt.objects().builder(name, Type.class)} for a
 * snapshot view or an own serializer), and run transactions with {@code TXBegin}/{@code TXEnd} or
 * {@code rt.transaction(...)}.
 *
 * <p>An object class is an ordinary, non-final class with a non-private no-argument constructor
 * whose methods carry the annotations of {@link io.vcorfu.runtime.annotations}. The runtime
 * generates one subclass (proxy) per class that intercepts exactly the annotated methods. Methods
 * without annotations run directly on the local view's state as it is, without syncing with the log
 * and without the view's lock: use them for fields that never change after the first write (like
 * the name in the paper's {@code User}) or for references to other objects.
 *
 * <p>Views: a local view (the default) keeps the state in this client; {@code builder(name,
 * Type.class).remote().open()} gives a remote view, whose state lives on the server holding the
 * stream's last replica and whose accessors travel there as requests (see {@link
 * io.vcorfu.runtime.ObjectBuilder#remote()}); {@code asOf(address)} gives a read-only snapshot of
 * either. {@link io.vcorfu.runtime.VCorfuRuntime#checkpoint(Object)} writes an object's fields to
 * its checkpoint stream, and local views open from the latest checkpoint instead of replaying the
 * whole stream; remote-view hosts checkpoint the objects they host periodically.
 *
 * <p>Each update on the log is an SMR entry in the format documented on {@link
 * io.vcorfu.runtime.smr.SmrRecord}: the target stream, the method's stable signature, the arguments
 * serialized one by one, and the conflict keys.
 */
package io.vcorfu.runtime;
