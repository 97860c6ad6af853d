package io.vcorfu.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The errors about object classes of remote views cross the wire with what they carry. */
class ClassesErrorsTest {
  @Test
  void classesNeededKeepsTheTypeAndTheDigest() {
    byte[] digest = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    VCorfuException back =
        Errors.toException(Errors.toMsg(new ClassesNeededException("com.example.Tally", digest)));
    assertThat(back).isInstanceOf(ClassesNeededException.class);
    ClassesNeededException needed = (ClassesNeededException) back;
    assertThat(needed.type()).isEqualTo("com.example.Tally");
    assertThat(needed.digest()).isEqualTo(digest);
    assertThat(needed.getMessage()).contains("com.example.Tally").contains("010203040506");
  }

  @Test
  void classesRefusedKeepsTheTypeAndItsOneLine() {
    String line = "node n does not have class com.example.Tally: put it on its --classpath";
    VCorfuException back =
        Errors.toException(Errors.toMsg(new ClassesRefusedException("com.example.Tally", line)));
    assertThat(back).isInstanceOf(ClassesRefusedException.class).hasMessage(line);
    assertThat(((ClassesRefusedException) back).type()).isEqualTo("com.example.Tally");
  }
}
