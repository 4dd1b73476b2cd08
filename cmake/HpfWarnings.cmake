# hpf_warnings(target): the project's warning set and, with HPF_SANITIZE, the sanitizers.
function(hpf_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic)
  if(HPF_SANITIZE)
    target_compile_options(${target} PUBLIC -fsanitize=${HPF_SANITIZE} -fno-omit-frame-pointer)
    target_link_options(${target} PUBLIC -fsanitize=${HPF_SANITIZE})
  endif()
endfunction()
