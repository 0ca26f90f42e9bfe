// assimp_harness: times the system assimp library's import for benches/peers.rs.
//
// Written for skelmap's peer benchmarks; it links the installed assimp (BSD-3-Clause;
// `apt-get install libassimp-dev`) and copies none of its code. The bench spawns this
// program once and talks to it over stdin/stdout, one request line and one reply line at
// a time:
//
//   load NAME PATH           import PATH once to see that assimp reads it
//                                  -> "ok MESHES VERTICES" and each mesh's vertex count
//   run NAME 1 ITERS         ITERS times: import the file, sum every mesh's vertex
//                            positions, free the scene; timed with std::chrono::steady_clock
//                            around the whole loop       -> "ok NANOSECONDS"
//   run-memory NAME 1 ITERS  the same from the file's bytes, read into memory at `load`
//                            (`ReadFileFromMemory`, the file's extension as the format hint):
//                            no file system in the loop  -> "ok NANOSECONDS"
//   dump NAME 1 PATH         import once; write every mesh's positions (float32, 3 per
//                            vertex, meshes in scene order) to PATH -> "ok"
//   quit                     exit
//
// Any failure replies "err MESSAGE".
//
// One Assimp::Importer is created at start and reused for every import (`ReadFile` then
// `FreeScene`), so its construction (registering every format's loader) is not timed: the
// best case for a program that loads many files. No post-processing steps are requested
// (flags 0): assimp's loaders' own output, as close to "open and read the vertices" as it
// offers. Positions are what assimp's loaders put in `aiMesh::mVertices`: for the
// animated formats here, the first frame (MDL, HMP) or the stored rest pose (MS3D).

#include <assimp/Importer.hpp>
#include <assimp/scene.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

// A file's bytes and its extension, for `run-memory`.
struct InMemory {
  std::vector<char> bytes;
  std::string hint;
};

// Sums every position of every mesh so the reads cannot be optimised away.
double position_sum(const aiScene* scene, size_t* vertices) {
  double sum = 0.0;
  size_t count = 0;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh* mesh = scene->mMeshes[m];
    for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
      const aiVector3D& p = mesh->mVertices[v];
      sum += static_cast<double>(p.x) + p.y + p.z;
    }
    count += mesh->mNumVertices;
  }
  if (vertices) *vertices = count;
  return sum;
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  Assimp::Importer importer;
  const unsigned flags = 0;
  std::map<std::string, std::string> paths;
  std::map<std::string, InMemory> in_memory;
  volatile double sink = 0.0;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream words(line);
    std::string command, name;
    words >> command;
    if (command == "quit") break;
    words >> name;
    if (command == "load") {
      std::string path;
      words >> path;
      const aiScene* scene = importer.ReadFile(path, flags);
      if (!scene) {
        std::cout << "err " << importer.GetErrorString() << std::endl;
        continue;
      }
      size_t vertices = 0;
      sink = sink + position_sum(scene, &vertices);
      std::ostringstream counts;
      for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
        counts << " " << scene->mMeshes[m]->mNumVertices;
      }
      const unsigned meshes = scene->mNumMeshes;
      importer.FreeScene();
      if (meshes == 0 || vertices == 0) {
        std::cout << "err assimp returned no vertices" << std::endl;
        continue;
      }
      paths[name] = path;
      std::ifstream file(path, std::ios::binary);
      InMemory& copy = in_memory[name];
      copy.bytes.assign(std::istreambuf_iterator<char>(file),
                        std::istreambuf_iterator<char>());
      const size_t dot = path.rfind('.');
      copy.hint = dot == std::string::npos ? "" : path.substr(dot + 1);
      std::cout << "ok " << meshes << " " << vertices << counts.str() << std::endl;
      continue;
    }
    auto found = paths.find(name);
    int threads = 0;
    words >> threads;
    if (found == paths.end() || threads != 1) {
      std::cout << "err unknown input or thread count: " << line << std::endl;
      continue;
    }
    const std::string& path = found->second;
    if (command == "run" || command == "run-memory") {
      uint64_t iters = 0;
      words >> iters;
      const bool memory = command == "run-memory";
      const InMemory& copy = in_memory[name];
      bool ok = true;
      double sum = 0.0;
      const auto start = std::chrono::steady_clock::now();
      for (uint64_t i = 0; i < iters; ++i) {
        const aiScene* scene =
            memory ? importer.ReadFileFromMemory(copy.bytes.data(), copy.bytes.size(),
                                                 flags, copy.hint.c_str())
                   : importer.ReadFile(path, flags);
        if (!scene) {
          ok = false;
          break;
        }
        sum += position_sum(scene, nullptr);
        importer.FreeScene();
      }
      const auto stop = std::chrono::steady_clock::now();
      sink = sink + sum;
      if (!ok) {
        std::cout << "err " << importer.GetErrorString() << std::endl;
        continue;
      }
      const auto ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(stop - start);
      std::cout << "ok " << ns.count() << std::endl;
    } else if (command == "dump") {
      std::string out_path;
      words >> out_path;
      const aiScene* scene = importer.ReadFile(path, flags);
      if (!scene) {
        std::cout << "err " << importer.GetErrorString() << std::endl;
        continue;
      }
      std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
      for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
        const aiMesh* mesh = scene->mMeshes[m];
        for (unsigned v = 0; v < mesh->mNumVertices; ++v) {
          const float xyz[3] = {mesh->mVertices[v].x, mesh->mVertices[v].y,
                                mesh->mVertices[v].z};
          out.write(reinterpret_cast<const char*>(xyz), sizeof xyz);
        }
      }
      importer.FreeScene();
      out.close();  // flushed before the reply, which lets the bench read it
      std::cout << (out ? "ok" : "err cannot write the dump") << std::endl;
    } else {
      std::cout << "err unknown command: " << line << std::endl;
    }
  }
  return 0;
}
