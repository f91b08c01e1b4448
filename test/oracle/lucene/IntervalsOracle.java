import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.queries.intervals.IntervalQuery;
import org.apache.lucene.queries.intervals.Intervals;
import org.apache.lucene.queries.intervals.IntervalsSource;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * Test oracle: which documents Lucene's interval queries match, as a cluster's `intervals`
 * `match` rule builds them (maxgaps over ordered or unordered terms).
 * Arguments: corpusFile queriesFile. The corpus has one "docno<TAB>tokens" line per document;
 * the queries one "qid<TAB>ordered(0|1)<TAB>maxGaps(-1 = none)<TAB>term term ..." line each.
 * Output: "qid<TAB>docno" for every matching document.
 */
public final class IntervalsOracle {
  public static void main(String[] args) throws Exception {
    ByteBuffersDirectory dir = new ByteBuffersDirectory();
    try (IndexWriter writer = new IndexWriter(dir, new IndexWriterConfig(new WhitespaceAnalyzer()))) {
      for (String line : Files.readAllLines(Paths.get(args[0]), StandardCharsets.UTF_8)) {
        if (line.isEmpty()) continue;
        String[] parts = line.split("\t", 2);
        Document doc = new Document();
        doc.add(new StringField("docno", parts[0], Field.Store.YES));
        doc.add(new TextField("text", parts.length > 1 ? parts[1] : "", Field.Store.NO));
        writer.addDocument(doc);
      }
    }
    PrintStream out = new PrintStream(System.out, false, "UTF-8");
    try (DirectoryReader reader = DirectoryReader.open(dir)) {
      IndexSearcher searcher = new IndexSearcher(reader);
      for (String line : Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8)) {
        if (line.isEmpty()) continue;
        String[] parts = line.split("\t");
        boolean ordered = parts[1].equals("1");
        int maxGaps = Integer.parseInt(parts[2]);
        List<IntervalsSource> terms = new ArrayList<>();
        for (String t : parts[3].split(" ")) terms.add(Intervals.term(t));
        IntervalsSource[] sources = terms.toArray(new IntervalsSource[0]);
        IntervalsSource source = ordered ? Intervals.ordered(sources) : Intervals.unordered(sources);
        if (maxGaps >= 0) source = Intervals.maxgaps(maxGaps, source);
        for (ScoreDoc hit : searcher.search(new IntervalQuery("text", source), reader.maxDoc()).scoreDocs) {
          out.println(parts[0] + "\t" + searcher.doc(hit.doc).get("docno"));
        }
      }
    }
    out.flush();
  }
}
