import java.io.BufferedReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Base64;
import org.apache.lucene.util.automaton.CharacterRunAutomaton;
import org.apache.lucene.util.automaton.RegExp;

/**
 * Test oracle: Lucene's RegExp (all flags, as RegexpQuery and the classic parser use it) run
 * on terms. Input lines: "R\t<base64 regex>" then "T\t<base64 term>" lines for that regex.
 * Output: per regex "E\t<exception class>" when new RegExp(body).toAutomaton() throws, else
 * "R" followed by one "1" or "0" per term (CharacterRunAutomaton.run), on one line.
 */
public final class RegexpRunOracle {
  public static void main(String[] args) throws Exception {
    BufferedReader in = Files.newBufferedReader(Paths.get(args[0]), StandardCharsets.UTF_8);
    PrintStream out = new PrintStream(System.out, false, "UTF-8");
    CharacterRunAutomaton run = null;
    StringBuilder line = null;
    String input;
    while ((input = in.readLine()) != null) {
      String text = new String(Base64.getDecoder().decode(input.substring(2)), StandardCharsets.UTF_8);
      if (input.charAt(0) == 'R') {
        if (line != null) out.println(line);
        try {
          run = new CharacterRunAutomaton(new RegExp(text).toAutomaton());
          line = new StringBuilder("R\t");
        } catch (Throwable e) {
          run = null;
          line = new StringBuilder("E\t" + e.getClass().getSimpleName());
        }
      } else if (run != null) {
        line.append(run.run(text) ? '1' : '0');
      }
    }
    if (line != null) out.println(line);
    out.flush();
  }
}
