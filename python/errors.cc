// graphopt's errors as Python exceptions (bindings.h).
#include <Python.h>

#include "bindings.h"

namespace graphopt::python {
namespace {

// A new exception class `graphopt.NAME` deriving from `bases` (a class or a tuple);
// the module holds it for the life of the process (the handle is not released).
py::handle NewException(py::module_& m, const char* name, py::handle bases, const char* doc) {
  const std::string qualified = std::string("graphopt.") + name;
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (type == nullptr) throw py::error_already_set();
  m.attr(name) = py::handle(type);
  return type;
}

}  // namespace

void BindErrors(py::module_& m) {
  static py::handle error = NewException(m, "Error", PyExc_Exception, "A failure graphopt reports: its message says what and where.");
  static py::handle invalid = NewException(m, "InvalidArgument", py::make_tuple(error, py::handle(PyExc_ValueError)),
                                           "A bad argument, option or input file (also a ValueError).");
  static py::handle not_found = NewException(m, "NotFound", py::make_tuple(error, py::handle(PyExc_LookupError)),
                                             "A file, model, cluster or method that does not exist (also a LookupError).");
  static py::handle io = NewException(m, "IoError", py::make_tuple(error, py::handle(PyExc_OSError)),
                                      "A file that cannot be read or written (also an OSError).");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      py::handle cls = error;
      switch (e.status().code()) {
        case StatusCode::kInvalidArgument:
        case StatusCode::kParseError:
          cls = invalid;
          break;
        case StatusCode::kNotFound:
          cls = not_found;
          break;
        case StatusCode::kIoError:
          cls = io;
          break;
        default:
          break;
      }
      PyErr_SetString(cls.ptr(), e.what());
    }
  });
}

}  // namespace graphopt::python
