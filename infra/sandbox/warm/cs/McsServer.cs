// A long-lived mcs: compiles one program per request in this Mono process, through the compiler's
// own in-process entry point (Mono.CSharp.CompilerCallableEntryPoint, in mcs.exe, which resets the
// compiler's state after each call), so Mono's start, the loading of mcs and of the referenced
// assemblies' metadata, and the JIT of the compiler are paid once instead of once per program.
//
// Protocol (stdin/stdout, as the warm javac server's): request `id TAB source-path TAB output-exe`;
// answer `id TAB 0|1 TAB diagnostics`, 0 a successful compile, 1 a compile error, the diagnostics
// escaped (\\, \n, \t). The options are those of the plain step (MultiPL-E's eval_cs.py:
// `-d:DEBUG -r:System.Numerics.dll`). Requests are served one at a time.
using System;
using System.IO;
using System.Text;

static class McsServer {
    static string Escape(string text) {
        return text.Replace("\\", "\\\\").Replace("\n", "\\n").Replace("\t", "\\t").Replace("\r", "");
    }

    static void Main() {
        var output = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false)) { AutoFlush = true };
        var input = new StreamReader(Console.OpenStandardInput(), new UTF8Encoding(false));
        output.WriteLine("ready");
        string line;
        while ((line = input.ReadLine()) != null) {
            var parts = line.Split('\t');
            string answer;
            if (parts.Length != 3) {
                answer = "?\t2\t" + Escape("bad request: " + line);
            } else {
                try {
                    var messages = new StringWriter();
                    var args = new[] { "-d:DEBUG", "-r:System.Numerics.dll", parts[1], "-out:" + parts[2] };
                    bool ok = Mono.CSharp.CompilerCallableEntryPoint.InvokeCompiler(args, messages);
                    answer = parts[0] + "\t" + (ok ? "0" : "1") + "\t" + Escape(messages.ToString());
                } catch (Exception error) {
                    // A crash of the compiler on one program is that program's compile error, not the server's.
                    answer = parts[0] + "\t1\t" + Escape("mcs crashed: " + error);
                }
            }
            output.WriteLine(answer);
        }
    }
}
