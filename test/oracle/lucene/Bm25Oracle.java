import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;

/**
 * Test oracle: Lucene's BM25Similarity on a small in-memory index.
 * Arguments: k1 b corpusFile queriesFile. The corpus has one "docno<TAB>tokens" line per
 * document (tokens already analysed, separated by single spaces); the queries one
 * "qid<TAB>Lucene query" line each. Output: "qid<TAB>docno<TAB>score" for every hit.
 */
public final class Bm25Oracle {
  public static void main(String[] args) throws Exception {
    float k1 = Float.parseFloat(args[0]);
    float b = Float.parseFloat(args[1]);
    BM25Similarity similarity = new BM25Similarity(k1, b);
    ByteBuffersDirectory dir = new ByteBuffersDirectory();
    IndexWriterConfig config = new IndexWriterConfig(new WhitespaceAnalyzer()).setSimilarity(similarity);
    try (IndexWriter writer = new IndexWriter(dir, config)) {
      for (String line : Files.readAllLines(Paths.get(args[2]), StandardCharsets.UTF_8)) {
        if (line.isEmpty()) continue;
        String[] parts = line.split("\t", 2);
        Document doc = new Document();
        doc.add(new StringField("docno", parts[0], Field.Store.YES));
        doc.add(new TextField("text", parts[1], Field.Store.NO));
        writer.addDocument(doc);
      }
    }
    PrintStream out = new PrintStream(System.out, false, "UTF-8");
    try (DirectoryReader reader = DirectoryReader.open(dir)) {
      IndexSearcher searcher = new IndexSearcher(reader);
      searcher.setSimilarity(similarity);
      List<String> queries = Files.readAllLines(Paths.get(args[3]), StandardCharsets.UTF_8);
      for (String line : queries) {
        if (line.isEmpty()) continue;
        String[] parts = line.split("\t", 2);
        Query query = new QueryParser("text", new WhitespaceAnalyzer()).parse(parts[1]);
        for (ScoreDoc hit : searcher.search(query, reader.maxDoc()).scoreDocs) {
          out.println(parts[0] + "\t" + searcher.doc(hit.doc).get("docno") + "\t" + hit.score);
        }
      }
    }
    out.flush();
  }
}
