import java.io.BufferedReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Base64;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.BooleanQuery;

/**
 * Test oracle: Lucene's classic QueryParser as it ships (Debian liblucene8-java).
 * Reads one base64 (UTF-8) query per line from the file named by the last argument and answers
 * one line per query on standard output:
 * "1\t<Query.toString()>" when the parser accepts it, "0\t<exception class>" when it throws
 * ("0\tRegExp" when Lucene's regular-expression parser threw: the body of a /regex/ is invalid).
 * Whitespace analysis, so that acceptance depends on the syntax alone.
 */
public final class ClassicParserOracle {
  public static void main(String[] args) throws Exception {
    boolean leadingWildcard = args.length > 1 && args[0].equals("--allow-leading-wildcard");
    BooleanQuery.setMaxClauseCount(1 << 20);
    BufferedReader in = Files.newBufferedReader(Paths.get(args[args.length - 1]), StandardCharsets.UTF_8);
    PrintStream out = new PrintStream(System.out, false, "UTF-8");
    String line;
    while ((line = in.readLine()) != null) {
      String query = new String(Base64.getDecoder().decode(line), StandardCharsets.UTF_8);
      QueryParser parser = new QueryParser("text", new WhitespaceAnalyzer());
      parser.setAllowLeadingWildcard(leadingWildcard);
      try {
        String shown = String.valueOf(parser.parse(query)).replace('\n', ' ').replace('\t', ' ');
        out.println("1\t" + shown);
      } catch (Throwable e) {
        out.println("0\t" + (thrownByRegExp(e) ? "RegExp" : e.getClass().getSimpleName()));
      }
    }
    out.flush();
  }

  private static boolean thrownByRegExp(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      for (StackTraceElement frame : t.getStackTrace()) {
        if (frame.getClassName().equals("org.apache.lucene.util.automaton.RegExp")) return true;
      }
    }
    return false;
  }
}
