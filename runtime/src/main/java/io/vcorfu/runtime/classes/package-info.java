/**
 * Object classes as remote-view hosts load them: {@link io.vcorfu.runtime.classes.ClassBundles}
 * gathers a class's bundle (the class and what it references from its own code source), reading
 * class files with {@link io.vcorfu.runtime.classes.ClassFileReader}.
 */
package io.vcorfu.runtime.classes;
